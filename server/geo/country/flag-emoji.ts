/** A flag emoji is the country code spelled in regional indicator symbols (U+1F1E6 is "A"). */
const REGIONAL_INDICATOR_A = 0x1f1e6;

export function flagEmoji(code: string): { emoji: string; unicode: string } | null {
  if (!/^[A-Z]{2}$/.test(code)) return null;
  const points = [...code].map((letter) => REGIONAL_INDICATOR_A + letter.charCodeAt(0) - 65);
  return {
    emoji: String.fromCodePoint(...points),
    unicode: points.map((point) => `U+${point.toString(16).toUpperCase()}`).join(" "),
  };
}
