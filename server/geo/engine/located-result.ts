/**
 * A located address's result: its parts' tokens and what varies per address (`address`) are set
 * at once, the Ip object is built when `data` is first read. Answers and stored rows are written
 * from the parts' cached texts and `address` (ip-object-json.ts, storage/record-codec.ts), so a
 * bulk whose locations and networks were seen before builds no Ip object: a dozen objects per
 * address that would stay alive until the bulk's answer is sent, copied by every scavenge in
 * between.
 */
import type { IpObject } from "../../../lib/schemas/ip-object.js";
import type { AddressFields, ConvertParts, ConvertResult } from "../types.js";
import { buildIpObject, type Lookups } from "./build-ip-object.js";

export class LocatedResult implements ConvertResult {
  readonly status = "success" as const;
  private built: IpObject | undefined;

  constructor(
    readonly parts: ConvertParts,
    readonly address: AddressFields,
    private readonly lookups: Lookups,
    private readonly flagUrl: (code: string) => string | null,
    private readonly lang: string | null,
  ) {}

  get data(): IpObject {
    return (this.built ??= buildIpObject(this.address, this.lookups, { flagUrl: this.flagUrl, lang: this.lang }));
  }
}
