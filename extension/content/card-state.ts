/** What the hover card is showing right now; a signal so the view re-renders by itself. */
import { signal } from "@preact/signals";
import type { IpObject } from "../../lib/schemas/ip-object.js";
import type { WireError } from "../shared/wire-error.js";

export type CardState =
  | { status: "private"; ip: string }
  | { status: "loading"; ip: string }
  | { status: "ready"; ip: string; data: IpObject | null }
  | { status: "error"; ip: string; error: WireError };

export const cardState = signal<CardState | null>(null);
