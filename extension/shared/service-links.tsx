/** Links to the user's lookup services (RDAP, BGP views, …) for one address. */
import { t } from "./i18n.js";
import { serviceUrl, type LookupService } from "./services.js";

export function ServiceLinks({ ip, services }: { ip: string; services: readonly LookupService[] }) {
  if (services.length === 0) return null;
  return (
    <nav class="links" aria-label={t("servicesFor", ip)}>
      {services.map((service) => (
        <a key={service.url} href={serviceUrl(service, ip)} target="_blank" rel="noopener noreferrer">
          {service.name}
        </a>
      ))}
    </nav>
  );
}
