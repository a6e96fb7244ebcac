/** What the engine logs through; the server passes its logger, the default is the console. */
export interface GeoLogger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}
