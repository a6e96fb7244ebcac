/**
 * Draws a country's flag (the server's SVG, `flag.img`) into toolbar-icon bitmaps. Needs a DOM to
 * decode SVG: it runs in Chrome's offscreen document and in Firefox's background page. Bitmaps
 * travel as plain arrays, since extension messages are JSON.
 */
export interface IconBitmap {
  size: number;
  data: number[];
}

export const ICON_SIZES = [16, 32] as const;

export async function drawFlagIcon(url: string, sizes: readonly number[] = ICON_SIZES): Promise<IconBitmap[]> {
  // Fetched, not loaded as <img src>: a cross-origin image would taint the canvas.
  const response = await fetch(url, { credentials: "omit", referrerPolicy: "no-referrer" });
  if (!response.ok) throw new Error(`flag ${url}: HTTP ${response.status}`);
  const svg = new Blob([await response.arrayBuffer()], { type: "image/svg+xml" });
  const objectUrl = URL.createObjectURL(svg);
  try {
    const image = new Image();
    image.src = objectUrl;
    await image.decode();
    return sizes.map((size) => {
      const canvas = document.createElement("canvas");
      canvas.width = canvas.height = size;
      const context = canvas.getContext("2d")!;
      // A 4:3 flag, full width, centred; a hairline edge keeps white flags visible on a light toolbar.
      const height = Math.round((size * 3) / 4);
      const top = Math.floor((size - height) / 2);
      context.drawImage(image, 0, top, size, height);
      context.strokeStyle = "rgba(0,0,0,.35)";
      context.lineWidth = 1;
      context.strokeRect(0.5, top + 0.5, size - 1, height - 1);
      return { size, data: Array.from(context.getImageData(0, 0, size, size).data) };
    });
  } finally {
    URL.revokeObjectURL(objectUrl);
  }
}

/** Back to the `imageData` dictionary `action.setIcon` takes. */
export function toImageData(bitmaps: readonly IconBitmap[]): Record<number, ImageData> {
  const out: Record<number, ImageData> = {};
  for (const { size, data } of bitmaps) out[size] = new ImageData(new Uint8ClampedArray(data), size, size);
  return out;
}

export interface DrawFlagMessage {
  type: "draw-flag";
  url: string;
}

export function isDrawFlagMessage(value: unknown): value is DrawFlagMessage {
  const message = value as Partial<DrawFlagMessage> | null;
  return message?.type === "draw-flag" && typeof message.url === "string";
}
