/**
 * The Ip object of docs/api.md#the-ip-object: what one address converts to.
 * Every key is always present; a nested object is `null` when none of its fields is known.
 */
import { z } from "zod";

const nullable = <T extends z.ZodType>(schema: T) => schema.nullable();

export const timezoneSchema = z.object({
  name: z.string().nullable(),
  time_now: z.string().nullable(),
});

export const citySchema = z.object({
  name: z.string().nullable(),
  geoname_id: z.number().int().nullable(),
  latitude: z.number().nullable(),
  longitude: z.number().nullable(),
  accuracy_radius: z.number().int().nullable(),
  metro_code: z.number().int().nullable(),
  postal_code: z.string().nullable(),
  timezone: nullable(timezoneSchema),
});

export const subdivisionSchema = z.object({
  name: z.string().nullable(),
  code: z.string().nullable(),
});

export const flagSchema = z.object({
  img: z.string().nullable(),
  emoji: z.string().nullable(),
  emoji_unicode: z.string().nullable(),
});

export const currencySchema = z.object({
  name: z.string().nullable(),
  code: z.string().nullable(),
  symbol: z.string().nullable(),
});

export const countrySchema = z.object({
  name: z.string().nullable(),
  code: z.string().nullable(),
  geoname_id: z.number().int().nullable(),
  phone_code: z.string().nullable(),
  capital: z.string().nullable(),
  tld: z.string().nullable(),
  subdivision: nullable(subdivisionSchema),
  city: nullable(citySchema),
  flag: nullable(flagSchema),
  currency: nullable(currencySchema),
});

export const continentSchema = z.object({
  name: z.string().nullable(),
  code: z.string().nullable(),
  geoname_id: z.number().int().nullable(),
  country: nullable(countrySchema),
});

export const registeredCountrySchema = z.object({
  name: z.string().nullable(),
  code: z.string().nullable(),
  geoname_id: z.number().int().nullable(),
});

export const asnSchema = z.object({
  number: z.number().int().nullable(),
  name: z.string().nullable(),
});

export const completionTimeSchema = z.object({
  miliseconds: z.number().nullable(),
  seconds: z.number().nullable(),
});

export const ipTypeSchema = z.enum(["ipv4", "ipv6"]);

export const ipObjectSchema = z.object({
  ip: z.string().nullable(),
  type: ipTypeSchema.nullable(),
  is_eu: z.boolean().nullable(),
  continent: nullable(continentSchema),
  registered_country: nullable(registeredCountrySchema),
  asn: nullable(asnSchema),
  completion_time: nullable(completionTimeSchema),
});

export type IpObject = z.infer<typeof ipObjectSchema>;
export type IpType = z.infer<typeof ipTypeSchema>;
export type Continent = z.infer<typeof continentSchema>;
export type Country = z.infer<typeof countrySchema>;
export type City = z.infer<typeof citySchema>;
export type RegisteredCountry = z.infer<typeof registeredCountrySchema>;
export type Asn = z.infer<typeof asnSchema>;

/**
 * A select request keeps only some leaves of an Ip object (interface.md "Select parameter").
 * `data` of a stored conversion after select is a partial tree of the same shape.
 */
export const selectedIpObjectSchema = z.record(z.string(), z.unknown());

/** Every leaf path of the Ip object, in the order of the specification: the allowed `select` values. */
export const IP_OBJECT_PATHS = [
  "ip",
  "type",
  "is_eu",
  "continent.name",
  "continent.code",
  "continent.geoname_id",
  "continent.country.name",
  "continent.country.code",
  "continent.country.geoname_id",
  "continent.country.phone_code",
  "continent.country.capital",
  "continent.country.tld",
  "continent.country.subdivision.name",
  "continent.country.subdivision.code",
  "continent.country.city.name",
  "continent.country.city.geoname_id",
  "continent.country.city.latitude",
  "continent.country.city.longitude",
  "continent.country.city.accuracy_radius",
  "continent.country.city.metro_code",
  "continent.country.city.postal_code",
  "continent.country.city.timezone.name",
  "continent.country.city.timezone.time_now",
  "continent.country.flag.img",
  "continent.country.flag.emoji",
  "continent.country.flag.emoji_unicode",
  "continent.country.currency.name",
  "continent.country.currency.code",
  "continent.country.currency.symbol",
  "registered_country.name",
  "registered_country.code",
  "registered_country.geoname_id",
  "asn.number",
  "asn.name",
  "completion_time.miliseconds",
  "completion_time.seconds",
] as const;

export type IpObjectPath = (typeof IP_OBJECT_PATHS)[number];

/** An Ip object with only `ip` (and `type`) known: invalid input, failed lookup, or an address with no geolocation. */
export function bareIpObject(ip: string, type: IpType | null): IpObject {
  return {
    ip,
    type,
    is_eu: null,
    continent: null,
    registered_country: null,
    asn: null,
    completion_time: null,
  };
}
