/** Display formats: dates in the reader's locale but always with UTC stated, numbers grouped. */
export const formatNumber = (n: number) => n.toLocaleString("en-US");

export function formatDate(iso: string | null | undefined, withTime = true): string {
  if (!iso) return "never";
  const date = new Date(iso);
  const text = withTime ? date.toISOString().replace("T", " ").slice(0, 16) : date.toISOString().slice(0, 10);
  return `${text}${withTime ? " UTC" : ""}`;
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
