/**
 * HTML for mail without string-built markup: a tagged template that escapes every value put into
 * it, unless the value is itself Html made by this tag (or a list of them).
 */

export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

type Value = Html | string | number | null | undefined | false | readonly Value[];

function written(value: Value): string {
  if (value === null || value === undefined || value === false) return "";
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(written).join("");
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let out = strings[0];
  values.forEach((value, i) => {
    out += written(value) + strings[i + 1];
  });
  return new Html(out);
}
