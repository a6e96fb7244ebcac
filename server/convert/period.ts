/** Plan quotas run per calendar month in UTC (docs/api.md#plans-and-quota). */

export interface Period {
  /** "2026-11", the key storage counts usage under */
  id: string;
  start: Date;
  /** start of the next period, exclusive */
  end: Date;
}

export function periodOf(at: Date | number): Period {
  const date = new Date(at);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  return {
    id: `${year}-${String(month + 1).padStart(2, "0")}`,
    start: new Date(Date.UTC(year, month, 1)),
    end: new Date(Date.UTC(year, month + 1, 1)),
  };
}
