import { describe, expect, it } from "vitest";
import { SessionStore, secretsEqual } from "./sessions.js";

describe("SessionStore", () => {
  it("reads back a session it issued, and any store with the same secret does too", () => {
    const store = new SessionStore({ secret: "token" });
    const { id, session } = store.create();
    expect(store.read(id)).toEqual(session);
    // another worker process
    expect(new SessionStore({ secret: "token" }).read(id)).toEqual(session);
    // a changed admin token ends every session
    expect(new SessionStore({ secret: "new token" }).read(id)).toBeNull();
  });

  it("refuses forged, tampered and missing cookies", () => {
    const store = new SessionStore({ secret: "token" });
    const { id } = store.create();
    const [expiry, nonce, signature] = id.split(".");
    expect(store.read(undefined)).toBeNull();
    expect(store.read("")).toBeNull();
    expect(store.read(`${Number(expiry) + 1000}.${nonce}.${signature}`)).toBeNull();
    expect(store.read(`${expiry}.${nonce!.replace(/^./, (c) => (c === "A" ? "B" : "A"))}.${signature}`)).toBeNull();
    expect(store.read(`${expiry}.${nonce}.${"A".repeat(43)}`)).toBeNull();
  });

  it("expires sessions after their lifetime", () => {
    let clock = 1_700_000_000_000;
    const store = new SessionStore({ secret: "token", lifetimeMs: 1000, now: () => clock });
    const { id } = store.create();
    clock += 999;
    expect(store.read(id)).not.toBeNull();
    clock += 1;
    expect(store.read(id)).toBeNull();
  });

  it("forgets a signed-out session, and only that one", () => {
    const store = new SessionStore({ secret: "token" });
    const a = store.create();
    const b = store.create();
    store.destroy(a.id);
    expect(store.read(a.id)).toBeNull();
    expect(store.read(b.id)).not.toBeNull();
  });

  it("gives each session its own CSRF token", () => {
    const store = new SessionStore({ secret: "token" });
    expect(store.create().session.csrfToken).not.toBe(store.create().session.csrfToken);
  });
});

describe("secretsEqual", () => {
  it("compares values of any length", () => {
    expect(secretsEqual("abc", "abc")).toBe(true);
    expect(secretsEqual("abc", "abcd")).toBe(false);
    expect(secretsEqual("", "abc")).toBe(false);
  });
});
