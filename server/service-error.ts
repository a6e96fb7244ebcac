/** What a service refuses, in words meant for the person who asked (CLI stderr, admin API message). */
export class ServiceError extends Error {
  constructor(
    readonly kind: "invalid" | "not-found",
    message: string,
  ) {
    super(message);
    this.name = "ServiceError";
  }
}
