/**
 * A located address's result: its parts' tokens and what varies per address are set at once, the
 * Ip object is built when `data` is read. Answers and stored rows are written from the
 * parts' cached texts and `address` (ip-object-json.ts, storage/record-codec.ts), so a bulk whose
 * locations and networks were seen before builds no Ip object: a dozen objects per address that
 * would stay alive until the bulk's answer is sent, copied by every scavenge in between. For the
 * same reason the per-address values and the lookups are this object's own fields (`address` is
 * the result itself) and the duration is a whole number of microseconds: one object an address
 * where there were four (the result, its address fields, its lookups, completion_time with two
 * boxed numbers).
 */
import type { IpObject } from "../../../lib/schemas/ip-object.js";
import type { Asn } from "../sources/lookups.js";
import type { Located, Place } from "../sources/located.js";
import type { AddressFields, ConvertParts, ConvertResult } from "../types.js";
import { buildIpObject, type Lookups } from "./build-ip-object.js";

export class LocatedResult implements ConvertResult, AddressFields, Lookups {
  readonly ip: string;
  readonly type: AddressFields["type"];
  readonly timeNow: string | null;
  readonly completionUs: number;
  readonly located: Located | null;
  readonly registeredCountry: Place | null;
  readonly asn: Asn | null;

  constructor(
    readonly parts: ConvertParts,
    address: AddressFields,
    lookups: Lookups,
    private readonly flagUrl: (code: string) => string | null,
    private readonly lang: string | null,
  ) {
    this.ip = address.ip;
    this.type = address.type;
    this.timeNow = address.timeNow;
    this.completionUs = address.completionUs;
    this.located = lookups.located;
    this.registeredCountry = lookups.registeredCountry;
    this.asn = lookups.asn;
  }

  get status(): "success" {
    return "success";
  }

  get address(): AddressFields {
    return this;
  }

  /**
   * Built at each read, not kept: it is read to make a new part's text (both parts' at once,
   * ip-object-json.ts), and kept it lived as long as a bulk's answer.
   */
  get data(): IpObject {
    return buildIpObject(this, this, { flagUrl: this.flagUrl, lang: this.lang });
  }
}
