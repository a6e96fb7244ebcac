/**
 * Visible addresses first: marks are watched with an IntersectionObserver and each one is reported
 * once, when it first comes near the viewport. The rest wait for a hover.
 */
import { markIp } from "./marks.js";

export interface VisibilityWatcher {
  watch(marks: readonly HTMLElement[]): void;
  stop(): void;
}

export function watchVisibleIps(onVisible: (ips: string[]) => void, rootMargin = "200px"): VisibilityWatcher {
  const observer = new IntersectionObserver(
    (entries) => {
      const ips: string[] = [];
      for (const entry of entries) {
        if (!entry.isIntersecting) continue;
        observer.unobserve(entry.target);
        ips.push(markIp(entry.target as HTMLElement).ip);
      }
      if (ips.length > 0) onVisible(ips);
    },
    { rootMargin },
  );
  return {
    // Private and reserved addresses are never looked up, so they need no watching.
    watch: (marks) => marks.forEach((mark) => markIp(mark).isPublic && observer.observe(mark)),
    stop: () => observer.disconnect(),
  };
}
