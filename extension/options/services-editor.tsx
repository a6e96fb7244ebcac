/** The options' list of lookup services: remove, reorder by re-adding, add one with a URL template, restore the defaults. */
import { useSignal } from "@preact/signals";
import { t } from "../shared/i18n.js";
import { checkService, DEFAULT_SERVICES, MAX_SERVICES, type LookupService } from "../shared/services.js";

export function ServicesEditor({ services, onChange }: { services: LookupService[]; onChange(next: LookupService[]): void }) {
  const name = useSignal("");
  const url = useSignal("");
  const problem = useSignal<string | null>(null);

  const add = (event: Event) => {
    event.preventDefault();
    const error = services.length >= MAX_SERVICES ? t("servicesFull", MAX_SERVICES) : checkService(name.value, url.value);
    problem.value = error;
    if (error) return;
    onChange([...services, { name: name.value.trim(), url: url.value.trim() }]);
    name.value = "";
    url.value = "";
  };

  return (
    <>
      <h2>{t("servicesHeading")}</h2>
      <p class="muted">{t("servicesNote")}</p>
      {services.length === 0 ? (
        <p class="muted">{t("none")}</p>
      ) : (
        <ul class="sites" aria-label={t("servicesHeading")}>
          {services.map((service, i) => (
            <li key={`${i}:${service.url}`}>
              <span>
                {service.name} <code>{service.url}</code>
              </span>
              <button type="button" aria-label={t("removeService", service.name)} onClick={() => onChange(services.filter((_, j) => j !== i))}>
                {t("remove")}
              </button>
            </li>
          ))}
        </ul>
      )}
      <form onSubmit={add}>
        <label for="service-name">{t("serviceName")}</label>
        <input id="service-name" type="text" placeholder="Shodan" value={name.value} onInput={(e) => (name.value = e.currentTarget.value)} />
        <label for="service-url">{t("serviceUrl")}</label>
        <input
          id="service-url"
          type="url"
          placeholder="https://www.shodan.io/host/{ip}"
          value={url.value}
          onInput={(e) => (url.value = e.currentTarget.value)}
        />
        <div class="row">
          <button type="submit">{t("addService")}</button>
          <button type="button" onClick={() => onChange([...DEFAULT_SERVICES])}>
            {t("restoreServices")}
          </button>
        </div>
      </form>
      {problem.value && <p class="status error" role="alert">{problem.value}</p>}
    </>
  );
}
