/** A project's stored conversions: ipSearch (prefix or CIDR), status filter, pages, one in detail, the map. */
import { useSignal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import { api } from "./api.js";
import { errorText, formatDate, formatNumber } from "./format.js";
import { WorldMap } from "./map/world-map.js";
import { conversionStatusSchema, type AdminConversionList, type Conversion, type ConversionMap, type ConversionStatus, type IpObject } from "./schemas.js";
import { announce } from "./state.js";
import { ErrorAlert } from "./error-alert.js";

const PAGE_SIZE = 20;

export function ConversionsPanel({ projectId }: { projectId: string }) {
  const ipSearch = useSignal("");
  const status = useSignal<ConversionStatus | "">("");
  const offset = useSignal(0);
  const page = useSignal<AdminConversionList | null>(null);
  const map = useSignal<ConversionMap | null>(null);
  const error = useSignal("");
  const detail = useSignal<Conversion | null>(null);
  // the filter that the shown page was loaded with (the inputs may have changed since)
  const applied = useSignal({ ipSearch: "", status: "" as ConversionStatus | "" });

  /** one page of the list; the map (the latest 1,000, unfiltered) only with `withMap` */
  const load = async (withMap = false) => {
    error.value = "";
    try {
      const [list, where] = await Promise.all([
        api.conversions(projectId, {
          offset: offset.value,
          limit: PAGE_SIZE,
          ipSearch: applied.value.ipSearch || undefined,
          status: applied.value.status || undefined,
        }),
        withMap ? api.conversionMap(projectId) : null,
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

  const search = (event: Event) => {
    event.preventDefault();
    applied.value = { ipSearch: ipSearch.value.trim(), status: status.value };
    offset.value = 0;
    void load().then(() => page.value && announce(`${formatNumber(page.value.totalCount)} conversions found`));
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

  const list = page.value;
  return (
    <section aria-labelledby="conversions-title" class="stack">
      <div class="row-between">
        <h2 id="conversions-title">Conversions</h2>
        <button type="button" class="secondary" onClick={() => void load(true)}>
          Refresh
        </button>
      </div>
      <form class="filters" onSubmit={search} role="search" aria-label="Filter conversions">
        <div>
          <label for="ip-search">IP address, prefix or CIDR</label>
          <input id="ip-search" placeholder="8.8. or 10.0.0.0/8" value={ipSearch.value} onInput={(e) => (ipSearch.value = e.currentTarget.value)} />
        </div>
        <div>
          <label for="status-filter">Status</label>
          <select id="status-filter" value={status.value} onChange={(e) => (status.value = e.currentTarget.value as ConversionStatus | "")}>
            <option value="">Any</option>
            {conversionStatusSchema.options.map((s) => (
              <option value={s}>{s}</option>
            ))}
          </select>
        </div>
        <button type="submit">Search</button>
      </form>
      <ErrorAlert message={error.value} />
      {list === null ? (
        <p aria-busy="true">Loading conversions…</p>
      ) : list.conversions.length === 0 ? (
        <p class="muted">No conversions match.</p>
      ) : (
        <>
          <div class="table-wrap">
            <table data-testid="conversions-table">
              <caption class="visually-hidden">Conversions, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">IP address</th>
                  <th scope="col">Status</th>
                  <th scope="col">Location</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {list.conversions.map((c) => (
                  <tr key={c.uniqueId}>
                    <th scope="row" data-label="IP address">
                      <button type="button" class="link" onClick={() => void open(c.uniqueId)} aria-haspopup="dialog">
                        {(c.data as IpObject).ip ?? "(none)"}
                      </button>
                    </th>
                    <td data-label="Status">
                      <span class={`badge ${c.status === "success" ? "" : "danger"}`}>{c.status}</span>
                    </td>
                    <td data-label="Location">{placeOf(c.data as IpObject)}</td>
                    <td data-label="Created">{formatDate(c.createdAt)}</td>
                  </tr>
                ))}
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
      {map.value && <WorldMap map={map.value} />}
      {detail.value && <ConversionDetail conversion={detail.value} onClose={() => (detail.value = null)} />}
    </section>
  );
}

function placeOf(data: IpObject) {
  const country = data.continent?.country;
  if (!country) return "—";
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
