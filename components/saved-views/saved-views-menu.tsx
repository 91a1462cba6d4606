"use client";

import { useEffect, useId, useRef, useState } from "react";
import { problemText } from "@/components/shared/problem-text";
import { type SavedView, VIEW_LIMITS, VIEW_PAGES } from "@/lib/schemas/saved-views";
import { VIEW_PAGE_LABELS } from "@/lib/url-state/saved-views";
import { useSavedViews } from "./saved-views-context";

const small =
  "rounded px-1.5 py-0.5 text-xs text-blue-800 underline hover:bg-slate-100 focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600";

/**
 * The header's "Saved views": a button that opens the user's views grouped by page, each opening
 * with its whole state, and renamed, deleted or marked as its page's default from the same place.
 * A disclosure, not an ARIA menu, because each view carries its own buttons.
 */
export function SavedViewsMenu() {
  const { views } = useSavedViews();
  const [open, setOpen] = useState(false);
  const panelId = useId();
  const root = useRef<HTMLDivElement>(null);
  const toggle = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") {
        setOpen(false);
        toggle.current?.focus();
      }
    };
    const onPointer = (e: PointerEvent) => {
      if (root.current && !root.current.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener("keydown", onKey);
    document.addEventListener("pointerdown", onPointer);
    return () => {
      document.removeEventListener("keydown", onKey);
      document.removeEventListener("pointerdown", onPointer);
    };
  }, [open]);

  return (
    <div ref={root} className="relative">
      <button
        ref={toggle}
        type="button"
        aria-expanded={open}
        aria-controls={panelId}
        onClick={() => setOpen((o) => !o)}
        className="rounded-md border border-slate-300 px-3 py-1 text-sm hover:bg-slate-100 focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600"
      >
        Saved views
      </button>
      <div
        id={panelId}
        hidden={!open}
        className="absolute right-0 z-40 mt-1 max-h-[70vh] w-[min(26rem,calc(100vw-1.5rem))] overflow-auto rounded-md border border-slate-300 bg-white p-2 text-sm shadow-lg"
      >
        {views.length === 0 ? (
          <p className="p-2 text-slate-700">No saved views yet. Set up a page, then use “Save view” on it.</p>
        ) : (
          VIEW_PAGES.filter((page) => views.some((v) => v.page === page)).map((page) => (
            <section key={page} aria-label={VIEW_PAGE_LABELS[page]} className="py-1">
              <h2 className="px-2 text-xs font-semibold tracking-wide text-slate-600 uppercase">{VIEW_PAGE_LABELS[page]}</h2>
              <ul>
                {views
                  .filter((v) => v.page === page)
                  .map((view) => (
                    <ViewRow key={view.id} view={view} onOpened={() => setOpen(false)} />
                  ))}
              </ul>
            </section>
          ))
        )}
      </div>
    </div>
  );
}

function ViewRow({ view, onOpened }: { view: SavedView; onOpened: () => void }) {
  const { open, rename, remove, setDefault } = useSavedViews();
  const [mode, setMode] = useState<"idle" | "rename" | "delete">("idle");
  const [name, setName] = useState(view.name);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const inputId = useId();

  const run = async (action: () => Promise<void>, after?: () => void) => {
    setBusy(true);
    setError(null);
    try {
      await action();
      after?.();
    } catch (err) {
      const text = problemText(err, "the view");
      setError(text.detail ?? text.title);
    } finally {
      setBusy(false);
    }
  };

  return (
    <li className="rounded px-2 py-1 hover:bg-slate-50">
      {mode === "rename" ? (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            const trimmed = name.trim();
            if (!trimmed || trimmed.length > VIEW_LIMITS.nameMax) return setError(`A name has 1 to ${VIEW_LIMITS.nameMax} characters.`);
            void run(() => rename(view, trimmed), () => setMode("idle"));
          }}
          className="flex flex-wrap items-center gap-1"
        >
          <label htmlFor={inputId} className="sr-only">
            New name for {view.name}
          </label>
          <input id={inputId} value={name} onChange={(e) => setName(e.target.value)} autoFocus className="min-w-0 flex-1 rounded border border-slate-400 px-1.5 py-0.5 text-sm" />
          <button type="submit" disabled={busy} className={small}>
            Save name
          </button>
          <button type="button" onClick={() => (setMode("idle"), setName(view.name), setError(null))} className={small}>
            Cancel
          </button>
        </form>
      ) : mode === "delete" ? (
        <div className="flex flex-wrap items-center gap-1">
          <span>Delete “{view.name}”?</span>
          <button type="button" disabled={busy} onClick={() => void run(() => remove(view))} className={small}>
            Yes, delete
          </button>
          <button type="button" onClick={() => setMode("idle")} className={small}>
            Keep it
          </button>
        </div>
      ) : (
        <div className="flex flex-wrap items-center gap-x-1">
          <a
            href={`${view.page}${view.query}`}
            onClick={(e) => {
              if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
              e.preventDefault();
              open(view);
              onOpened();
            }}
            className="min-w-0 flex-1 truncate font-medium text-blue-900 underline-offset-2 hover:underline focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600"
          >
            {view.name}
          </a>
          {view.is_default ? <span className="rounded bg-slate-200 px-1.5 text-xs text-slate-800">default</span> : null}
          <button type="button" aria-label={`Rename ${view.name}`} onClick={() => setMode("rename")} className={small}>
            Rename
          </button>
          <button
            type="button"
            aria-label={view.is_default ? `Stop opening ${VIEW_PAGE_LABELS[view.page]} on ${view.name}` : `Open ${VIEW_PAGE_LABELS[view.page]} on ${view.name} by default`}
            disabled={busy}
            onClick={() => void run(() => setDefault(view, !view.is_default))}
            className={small}
          >
            {view.is_default ? "Not default" : "Make default"}
          </button>
          <button type="button" aria-label={`Delete ${view.name}`} onClick={() => setMode("delete")} className={small}>
            Delete
          </button>
        </div>
      )}
      {error ? <p className="text-xs text-red-800">{error}</p> : null}
    </li>
  );
}
