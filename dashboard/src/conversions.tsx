/**
 * A project's stored conversions: filters (address prefix or CIDR, status, country, ASN) that the
 * map, the per-day chart, the list and the export all follow; the map first.
 */
import { useSignal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import { addressLabel } from "./address-label.js";
import { api, exportConversions } from "./api.js";
import { errorText, formatDate, formatNumber } from "./format.js";
import { DailyChart, WorldMap } from "./map/world-map.js";
import {
  conversionStatusSchema,
  type AdminConversionList,
  type Conversion,
  type ConversionFilterInput,
  type ConversionMap,
  type ConversionStatus,
  type IpObject,
} from "./schemas.js";
import { announce } from "./state.js";
import { reloadProjects } from "./projects.js";
import { ErrorAlert } from "./error-alert.js";

const PAGE_SIZE = 20;
const NO_FILTER: Required<ConversionFilterInput> = { ipSearch: "", status: "", country: "", asn: "" };

export function ConversionsPanel({ projectId }: { projectId: string }) {
  // what the inputs say, and what the shown results were loaded with
  const draft = useSignal({ ...NO_FILTER });
  const applied = useSignal({ ...NO_FILTER });
  const offset = useSignal(0);
  const page = useSignal<AdminConversionList | null>(null);
  const map = useSignal<ConversionMap | null>(null);
  const error = useSignal("");
  const detail = useSignal<Conversion | null>(null);

  /** one page of the list; the map and the per-day counts too when the filter changed */
  const load = async (withMap = false) => {
    error.value = "";
    const filter = applied.value;
    try {
      const [list, where] = await Promise.all([
        api.conversions(projectId, { ...filter, offset: offset.value, limit: PAGE_SIZE }),
        withMap ? api.conversionMap(projectId, filter) : null,
      ]);
      page.value = list;
      if (where) map.value = where;
    } catch (e) {
      error.value = errorText(e);
    }
  };
  useEffect(() => {
    page.value = null;
    map.value = null;
    detail.value = null;
    offset.value = 0;
    void load(true);
  }, [projectId]);

  const apply = (filter: Required<ConversionFilterInput>) => {
    applied.value = { ipSearch: filter.ipSearch.trim(), status: filter.status, country: filter.country.trim(), asn: filter.asn.trim() };
    offset.value = 0;
    void load(true).then(() => page.value && announce(`${formatNumber(page.value.totalCount)} conversions found`));
  };
  const search = (event: Event) => {
    event.preventDefault();
    apply(draft.value);
  };
  const clear = () => {
    draft.value = { ...NO_FILTER };
    apply(NO_FILTER);
  };
  const go = (to: number) => {
    offset.value = Math.max(0, to);
    void load();
  };
  const open = async (uniqueId: string) => {
    try {
      detail.value = (await api.conversion(projectId, uniqueId)).conversion;
    } catch (e) {
      error.value = errorText(e);
    }
  };
  const set = (name: keyof ConversionFilterInput) => (e: Event) => (draft.value = { ...draft.value, [name]: (e.currentTarget as HTMLInputElement).value });
  const filtered = Object.values(applied.value).some(Boolean);

  const list = page.value;
  return (
    <section aria-labelledby="conversions-title" class="stack">
      <div class="row-between">
        <h2 id="conversions-title">Conversions</h2>
        <button type="button" class="secondary" onClick={() => void Promise.all([load(true), reloadProjects().catch(() => {})])}>
          Refresh
        </button>
      </div>
      <form class="filters" onSubmit={search} role="search" aria-label="Filter conversions">
        <div>
          <label for="ip-search">IP address, prefix or CIDR</label>
          <input id="ip-search" placeholder="8.8. or 10.0.0.0/8" value={draft.value.ipSearch} onInput={set("ipSearch")} />
        </div>
        <div class="narrow-field">
          <label for="status-filter">Status</label>
          <select id="status-filter" value={draft.value.status} onChange={set("status")}>
            <option value="">Any</option>
            {conversionStatusSchema.options.map((s) => (
              <option value={s}>{s}</option>
            ))}
          </select>
        </div>
        <div class="narrow-field">
          <label for="country-filter">Country</label>
          <input id="country-filter" placeholder="DE" maxLength={2} list="country-options" autocapitalize="characters" value={draft.value.country} onInput={set("country")} />
          <datalist id="country-options">
            {map.value?.countries.map((c) => (
              <option value={c.code}>{c.name}</option>
            ))}
          </datalist>
        </div>
        <div class="narrow-field">
          <label for="asn-filter">ASN</label>
          <input id="asn-filter" placeholder="AS15169" value={draft.value.asn} onInput={set("asn")} />
        </div>
        <div class="filter-actions">
          <button type="submit">Search</button>
          {filtered && (
            <button type="button" class="secondary" onClick={clear}>
              Clear
            </button>
          )}
        </div>
      </form>
      <ErrorAlert message={error.value} />
      {map.value && (
        <div class="insights">
          <WorldMap map={map.value} />
          <DailyChart days={map.value.days} />
        </div>
      )}
      {list === null ? (
        <p aria-busy="true">Loading conversions…</p>
      ) : list.conversions.length === 0 ? (
        <p class="muted">No conversions match.</p>
      ) : (
        <>
          <div class="row-between list-head">
            <h3>
              {formatNumber(list.totalCount)} conversion{list.totalCount === 1 ? "" : "s"}
              {filtered ? " match" : ""}
            </h3>
            <ExportButtons projectId={projectId} filter={applied.value} expected={list.totalCount} />
          </div>
          <div class="table-wrap">
            <table data-testid="conversions-table">
              <caption class="visually-hidden">Conversions, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">IP address</th>
                  <th scope="col">Status</th>
                  <th scope="col">Location</th>
                  <th scope="col">Network</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {list.conversions.map((c) => {
                  const data = c.data as IpObject;
                  return (
                    <tr key={c.uniqueId}>
                      <th scope="row" data-label="IP address">
                        <button type="button" class="link" onClick={() => void open(c.uniqueId)} aria-haspopup="dialog">
                          {data.ip ?? "(none)"}
                        </button>
                      </th>
                      <td data-label="Status">
                        <span class={`badge ${c.status === "success" ? "" : "danger"}`}>{c.status}</span>
                      </td>
                      <td data-label="Location">{c.status === "invalid-ip-address" ? <span class="muted">not an IP address</span> : placeOf(data)}</td>
                      <td data-label="Network">{data.asn?.number != null ? `AS${data.asn.number} ${data.asn.name ?? ""}` : "—"}</td>
                      <td data-label="Created">{formatDate(c.createdAt)}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          <nav class="pager" aria-label="Pages">
            <button type="button" class="secondary" disabled={offset.value === 0} onClick={() => go(offset.value - PAGE_SIZE)}>
              Previous
            </button>
            <span aria-live="polite">
              {formatNumber(offset.value + 1)}–{formatNumber(offset.value + list.conversions.length)} of {formatNumber(list.totalCount)}
            </span>
            <button type="button" class="secondary" disabled={!list.hasMore} onClick={() => go(offset.value + PAGE_SIZE)}>
              Next
            </button>
          </nav>
        </>
      )}
      {detail.value && <ConversionDetail conversion={detail.value} onClose={() => (detail.value = null)} />}
    </section>
  );
}

/** Download of the filtered list, streamed, with the rows received so far against the expected count. */
function ExportButtons({ projectId, filter, expected }: { projectId: string; filter: ConversionFilterInput; expected: number }) {
  const rows = useSignal<number | null>(null);
  const error = useSignal("");
  const run = async (format: "csv" | "ndjson") => {
    error.value = "";
    rows.value = 0;
    try {
      const result = await exportConversions(api.exportUrl(projectId, filter, format), (n) => (rows.value = n));
      const link = document.createElement("a");
      link.href = URL.createObjectURL(result.blob);
      link.download = result.name;
      link.click();
      setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
      announce(`Exported ${formatNumber(result.rows)} conversions`);
    } catch (e) {
      error.value = errorText(e);
    } finally {
      rows.value = null;
    }
  };
  const busy = rows.value !== null;
  return (
    <div class="export">
      <span class="muted">Export</span>
      <button type="button" class="secondary" disabled={busy} onClick={() => void run("csv")}>
        CSV
      </button>
      <button type="button" class="secondary" disabled={busy} onClick={() => void run("ndjson")}>
        NDJSON
      </button>
      {busy && (
        <span class="export-progress" role="status">
          <progress max={Math.max(1, expected)} value={Math.min(rows.value!, expected)} aria-label="Export progress" />{" "}
          {formatNumber(rows.value!)} of {formatNumber(expected)} rows
        </span>
      )}
      <ErrorAlert message={error.value} />
    </div>
  );
}

function placeOf(data: IpObject) {
  const country = data.continent?.country;
  if (!country) {
    // say why an address has no location instead of a bare dash
    const label = addressLabel(data.ip);
    return label ? <span class="badge reserved">{label}</span> : <span class="muted">unknown</span>;
  }
  const parts = [country.city?.name, country.subdivision?.name, country.name].filter(Boolean);
  // the server's SVG flag, not the emoji: many systems have no flag glyphs
  return (
    <span class="place">
      {country.flag?.img && <img src={country.flag.img} alt="" width={20} height={15} class="flag" />}
      {parts.join(", ")}
    </span>
  );
}

function ConversionDetail({ conversion, onClose }: { conversion: Conversion; onClose: () => void }) {
  // a native modal dialog: focus is trapped and Escape closes it without our code
  const attach = (dialog: HTMLDialogElement | null) => {
    if (dialog && !dialog.open) dialog.showModal();
  };
  const data = conversion.data as IpObject;
  return (
    <dialog ref={attach} onClose={onClose} aria-labelledby="detail-title" class="detail">
      <h2 id="detail-title">Conversion of {data.ip ?? "(none)"}</h2>
      <dl class="facts">
        <dt>Id</dt>
        <dd>
          <code>{conversion.uniqueId}</code>
        </dd>
        <dt>Status</dt>
        <dd>{conversion.status}</dd>
        <dt>Location</dt>
        <dd>{placeOf(data)}</dd>
        <dt>Network</dt>
        <dd>{data.asn ? `AS${data.asn.number ?? "?"} ${data.asn.name ?? ""}` : "—"}</dd>
        <dt>Started</dt>
        <dd>{formatDate(conversion.startedAt)}</dd>
        <dt>Completed</dt>
        <dd>{formatDate(conversion.completedAt)}</dd>
      </dl>
      <details>
        <summary>Stored data (JSON)</summary>
        <pre tabIndex={0}>{JSON.stringify(conversion.data, null, 2)}</pre>
      </details>
      <form method="dialog">
        <button type="submit" autofocus>
          Close
        </button>
      </form>
    </dialog>
  );
}
