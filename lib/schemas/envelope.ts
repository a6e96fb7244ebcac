/** The response envelope every API answer uses (docs/api.md#conventions). */
import { z } from "zod";

export const requestMetaSchema = z.object({
  reqId: z.string(),
  resTime: z.number(),
});

export const envelopeSchema = <T extends z.ZodType>(data: T) =>
  z.object({
    success: z.boolean(),
    message: z.string(),
    code: z.number().int(),
    data,
    _req: requestMetaSchema,
  });

/** An error answer: `data` is null or an object of details (`invalidIds`, `invalidFields`, `issues`). */
export const errorEnvelopeSchema = envelopeSchema(z.record(z.string(), z.unknown()).nullable());

export type RequestMeta = z.infer<typeof requestMetaSchema>;
export type Envelope<T> = { success: boolean; message: string; code: number; data: T; _req: RequestMeta };
export type ErrorEnvelope = z.infer<typeof errorEnvelopeSchema>;
