"use client";

import { useEffect, useId, useRef, useState } from "react";
import { DATE_PRESETS, type DatePreset } from "@/lib/domain/date-presets";
import { LIMITS } from "@/lib/schemas/search";
import { activeFiltersOf, type FilterDef, withPresetDates } from "@/lib/url-state/dispute-view";
import { splitList } from "@/lib/url-state/parsers";
import { useDeadlines } from "./deadline-context";
import { ShopPicker } from "./shop-picker";

type FilterValues = Record<string, unknown>;

interface FilterPanelProps {
  /** the view's filters (FILTERS[kind] for a grid, WORKLIST_FILTERS for the worklist) */
  defs: readonly FilterDef[];
  values: FilterValues;
  /** the user's access list: the only shops that can be chosen */
  shops: readonly string[];
  /** sets filter values (null clears one); the caller also returns to the first page */
  onChange: (patch: Record<string, string | string[] | null>) => void;
}

const DEBOUNCE_MS = 400;
const inputClass =
  "block w-full rounded-md border border-slate-400 bg-white px-2 py-1.5 text-sm text-slate-900 focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600";

/**
 * A field for every filter of the view (lib/url-state: FILTERS, WORKLIST_FILTERS). Typed text is
 * debounced and applied after a pause (or at once on Enter / leaving the field); dates, presets
 * and shops apply at once (shops when the picker closes). On a phone the panel folds away behind a
 * "Filters" button.
 */
export function FilterPanel({ defs, values, shops, onChange }: FilterPanelProps) {
  const [open, setOpen] = useState(false);
  const panelId = useId();
  const { today } = useDeadlines();
  const count = activeFiltersOf(defs, values).length;
  // A preset's dates are shown in the date fields; typing a date turns them into a fixed range.
  const preset = (values.range as DatePreset | null | undefined) ?? null;
  const dates = withPresetDates(values, today);
  const from = dates.from as string | null;
  const to = dates.to as string | null;
  const changeDate = (patch: Record<string, string | null>) => onChange(preset ? { range: null, from, to, ...patch } : patch);
  const rangeError = from && to && from > to ? "The start date is after the end date: nothing can match." : undefined;

  return (
    <section aria-label="Filters" className="rounded-md border border-slate-300 bg-white">
      <div className="flex items-center justify-between gap-2 px-3 py-2">
        {/* On a phone the panel folds; from md up it is always open and needs no toggle. */}
        <button
          type="button"
          aria-expanded={open}
          aria-controls={panelId}
          onClick={() => setOpen((o) => !o)}
          className="inline-flex items-center gap-2 rounded-md px-1 py-1 text-sm font-semibold text-slate-900 focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 md:hidden"
        >
          <span aria-hidden="true">{open ? "▾" : "▸"}</span>
          Filters{count ? ` (${count} active)` : ""}
        </button>
        <h2 className="hidden px-1 py-1 text-sm font-semibold text-slate-900 md:block">Filters{count ? ` (${count} active)` : ""}</h2>
        {count ? (
          <button
            type="button"
            onClick={() => onChange(Object.fromEntries(defs.map((d) => [d.key, null])))}
            className="rounded-md px-2 py-1 text-sm text-blue-800 underline hover:bg-slate-100 focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600"
          >
            Clear all filters
          </button>
        ) : null}
      </div>
      <div id={panelId} className={`${open ? "grid" : "hidden"} gap-x-3 gap-y-2 border-t border-slate-200 p-3 sm:grid-cols-2 md:grid md:grid-cols-4`}>
        {defs.map((def) => {
          switch (def.type) {
            case "preset":
              return <PresetFilter key={def.key} def={def} value={preset} onChange={onChange} />;
            case "date":
              return <DateFilter key={def.key} def={def} value={dates[def.key] as string | null} onChange={changeDate} error={def.key === "from" ? rangeError : undefined} />;
            case "shops":
              return (
                <ShopPicker
                  key={def.key}
                  shops={shops}
                  value={(values[def.key] as string[] | null) ?? NO_SHOPS}
                  onChange={(next) => onChange({ [def.key]: next.length ? next : null })}
                />
              );
            case "text":
              return <TextFilter key={def.key} def={def} value={values[def.key] as string | null} onChange={onChange} />;
            case "choice":
              return <ChoiceFilter key={def.key} def={def} value={(values[def.key] as string[] | null) ?? []} onChange={onChange} />;
            default:
              return <ListFilter key={def.key} def={def} value={(values[def.key] as string[] | null) ?? []} onChange={onChange} />;
          }
        })}
      </div>
    </section>
  );
}

interface FieldProps<T> {
  def: FilterDef;
  value: T;
  onChange: FilterPanelProps["onChange"];
}

const NO_SHOPS: readonly string[] = [];

/**
 * The file-date presets (lib/domain/date-presets.ts) as buttons: the chosen one is pressed, and
 * pressing it again clears the range. The URL keeps the preset's name, so it moves with the calendar.
 */
function PresetFilter({ value, onChange }: FieldProps<DatePreset | null>) {
  return (
    <div role="group" aria-label="File date presets" className="flex flex-wrap gap-1 sm:col-span-2 md:col-span-4">
      {DATE_PRESETS.map((p) => {
        const pressed = value === p.slug;
        return (
          <button
            key={p.slug}
            type="button"
            aria-pressed={pressed}
            onClick={() => onChange({ range: pressed ? null : p.slug, from: null, to: null })}
            className={`rounded-full border px-2.5 py-0.5 text-xs focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 ${pressed ? "border-blue-700 bg-blue-700 text-white" : "border-slate-300 text-slate-800 hover:bg-slate-100"}`}
          >
            {p.label}
          </button>
        );
      })}
    </div>
  );
}

function DateFilter({ def, value, onChange, error }: Omit<FieldProps<string | null>, "onChange"> & { onChange: (patch: Record<string, string | null>) => void; error?: string }) {
  const id = useId();
  const errorId = useId();
  return (
    <div className="space-y-1">
      <label htmlFor={id} className="block text-sm font-medium text-slate-800">
        {def.label}
      </label>
      <input
        id={id}
        type="date"
        value={value ?? ""}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? errorId : undefined}
        // The browser only reports complete, real dates (or "" when cleared).
        onChange={(e) => onChange({ [def.key]: e.target.value || null })}
        className={inputClass}
      />
      {error ? (
        <p id={errorId} className="text-xs text-red-800">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** A few fixed values, any of which may be chosen; none chosen means all of them. */
function ChoiceFilter({ def, value, onChange }: FieldProps<string[]>) {
  const options = def.options ?? [];
  const all = options.map((o) => o.value);
  // Nothing in the URL means the request's default: every option, or the filter's own defaults.
  const defaults = def.defaults ?? all;
  const selected = new Set(value.length ? value : defaults);
  const toggle = (option: string, on: boolean) => {
    const next = all.filter((v) => (v === option ? on : selected.has(v)));
    // At least one stays chosen: nothing chosen would mean the default again.
    if (next.length === 0) return;
    const isDefault = next.length === defaults.length && next.every((v) => defaults.includes(v));
    onChange({ [def.key]: isDefault ? null : next });
  };
  const hintId = useId();
  return (
    <fieldset className="space-y-1" aria-describedby={def.hint ? hintId : undefined}>
      <legend className="text-sm font-medium text-slate-800">{def.label}</legend>
      <div className="flex flex-wrap gap-x-3 rounded-md border border-slate-300 px-2 py-1">
        {options.map((o) => (
          <label key={o.value} className="flex cursor-pointer items-center gap-2 rounded px-1 text-sm hover:bg-slate-100">
            <input type="checkbox" checked={selected.has(o.value)} onChange={(e) => toggle(o.value, e.target.checked)} className="h-4 w-4 accent-blue-700" />
            {o.label}
          </label>
        ))}
      </div>
      {def.hint ? (
        <p id={hintId} className="text-xs text-slate-700">
          {def.hint}
        </p>
      ) : null}
    </fieldset>
  );
}

/**
 * Local text that follows the URL: when the URL changes from outside (Back, a cleared filter),
 * the field shows the new value; while the user types, their text is kept as typed.
 */
function useDebouncedText(urlText: string, commit: (text: string) => void) {
  const [text, setText] = useState(urlText);
  const committed = useRef(urlText);
  useEffect(() => {
    if (urlText !== committed.current) {
      committed.current = urlText;
      setText(urlText);
    }
  }, [urlText]);
  const flush = (value: string) => {
    if (value === committed.current) return;
    committed.current = value;
    commit(value);
  };
  useEffect(() => {
    if (text === committed.current) return;
    const timer = window.setTimeout(() => flush(text), DEBOUNCE_MS);
    return () => window.clearTimeout(timer);
    // flush reads refs only
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [text]);
  return { text, setText, flush };
}

function TextFilter({ def, value, onChange }: FieldProps<string | null>) {
  const id = useId();
  const errorId = useId();
  const tooLong = (t: string) => t.trim().length > LIMITS.stringMax;
  const { text, setText, flush } = useDebouncedText(value ?? "", (t) => {
    if (!tooLong(t)) onChange({ [def.key]: t.trim() || null });
  });
  const error = tooLong(text) ? `At most ${LIMITS.stringMax} characters.` : undefined;
  return (
    <div className="space-y-1">
      <label htmlFor={id} className="block text-sm font-medium text-slate-800">
        {def.label}
      </label>
      <input
        id={id}
        type="text"
        value={text}
        spellCheck={false}
        autoComplete="off"
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? errorId : undefined}
        onChange={(e) => setText(e.target.value)}
        onBlur={() => flush(text)}
        onKeyDown={(e) => {
          if (e.key === "Enter") flush(text);
        }}
        className={inputClass}
      />
      {error ? (
        <p id={errorId} className="text-xs text-red-800">
          {error}
        </p>
      ) : null}
    </div>
  );
}

function listError(items: string[]): string | undefined {
  if (items.length > LIMITS.arrayItemsMax) return `At most ${LIMITS.arrayItemsMax} values at once (${items.length} pasted).`;
  const long = items.find((i) => i.length > LIMITS.stringMax);
  if (long) return `A value is longer than ${LIMITS.stringMax} characters: ${long.slice(0, 20)}…`;
  return undefined;
}

function ListFilter({ def, value, onChange }: FieldProps<string[]>) {
  const id = useId();
  const helpId = useId();
  const { text, setText, flush } = useDebouncedText(value.join("\n"), (t) => {
    const items = splitList(t);
    if (!listError(items)) onChange({ [def.key]: items.length ? items : null });
  });
  const items = splitList(text);
  const error = listError(items);
  return (
    <div className="space-y-1">
      <label htmlFor={id} className="block text-sm font-medium text-slate-800">
        {def.label}
      </label>
      <textarea
        id={id}
        rows={1}
        value={text}
        spellCheck={false}
        aria-invalid={error ? true : undefined}
        aria-describedby={helpId}
        onChange={(e) => setText(e.target.value)}
        onBlur={() => flush(text)}
        className={`${inputClass} min-h-[34px] resize-y font-mono text-xs`}
      />
      <p id={helpId} className={`text-xs ${error ? "text-red-800" : "text-slate-700"}`}>
        {error ?? (items.length ? `${items.length} value${items.length === 1 ? "" : "s"}` : (def.hint ?? ""))}
      </p>
    </div>
  );
}
