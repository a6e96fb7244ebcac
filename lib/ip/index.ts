/** Address parsing, classification and CIDR ranges, shared by the server and the browser code. */
export { parseIp, parseAddress, type ParsedIp, type IpVersion } from "./parse.js";
export { addressRange, isPublicAddress } from "./classify.js";
export { parseCidr, type CidrRange } from "./cidr.js";
