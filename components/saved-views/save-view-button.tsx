"use client";

import * as Dialog from "@radix-ui/react-dialog";
import { usePathname } from "next/navigation";
import { useId, useState } from "react";
import { ApiProblem } from "@/components/shared/api";
import { problemText } from "@/components/shared/problem-text";
import { VIEW_LIMITS } from "@/lib/schemas/saved-views";
import { VIEW_PAGE_LABELS, viewPageOf } from "@/lib/url-state/saved-views";
import { useSavedViews } from "./saved-views-context";

const button =
  "rounded-md border border-slate-300 bg-white px-3 py-1 text-sm text-slate-900 hover:bg-slate-100 focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600";

/**
 * "Save view" on a page that can be saved: a dialog asks for the name (and whether the page should
 * open on it), then the page's whole state is stored on the server (docs/api.md, "Saved views").
 */
export function SaveViewButton() {
  const pathname = usePathname();
  const page = viewPageOf(pathname);
  const { save, views } = useSavedViews();
  const [open, setOpen] = useState(false);
  const [name, setName] = useState("");
  const [makeDefault, setMakeDefault] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState<string | null>(null);
  const nameId = useId();
  const errorId = useId();
  if (!page) return null;

  const trimmed = name.trim();
  const taken = views.some((v) => v.name.trim().toLowerCase() === trimmed.toLowerCase());
  const localError =
    trimmed.length > VIEW_LIMITS.nameMax ? `At most ${VIEW_LIMITS.nameMax} characters (${trimmed.length} typed).` : taken ? `You already have a view named “${trimmed}”: choose another name.` : null;

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    if (!trimmed) return setError("Give the view a name.");
    if (localError) return setError(localError);
    setSaving(true);
    setError(null);
    try {
      const view = await save(page, trimmed, makeDefault);
      setSaved(view.name);
      setOpen(false);
    } catch (err) {
      const field = err instanceof ApiProblem ? err.fields.find((f) => f.field === "name") : undefined;
      setError(field ? `${field.message[0].toUpperCase()}${field.message.slice(1)}.` : (problemText(err, "the view").detail ?? problemText(err, "the view").title));
    } finally {
      setSaving(false);
    }
  };

  const shownError = error ?? localError;
  return (
    <div className="flex items-center gap-2">
      <Dialog.Root
        open={open}
        onOpenChange={(next) => {
          setOpen(next);
          if (next) {
            setName("");
            setMakeDefault(false);
            setError(null);
            setSaved(null);
          }
        }}
      >
        <Dialog.Trigger className={button}>Save view</Dialog.Trigger>
        <Dialog.Portal>
          <Dialog.Overlay className="fixed inset-0 z-40 bg-slate-900/40" />
          <Dialog.Content className="fixed top-1/2 left-1/2 z-50 w-[min(28rem,calc(100vw-2rem))] -translate-x-1/2 -translate-y-1/2 rounded-lg bg-white p-4 shadow-xl focus:outline-none">
            <Dialog.Title className="text-lg font-semibold">Save view</Dialog.Title>
            <Dialog.Description className="mt-1 text-sm text-slate-700">
              Keeps this page ({VIEW_PAGE_LABELS[page]}) as it is now: filters, date preset, sort, page size{page === "/report" ? ", layout" : ""} and columns. Only you see your views.
            </Dialog.Description>
            <form onSubmit={(e) => void submit(e)} className="mt-3 space-y-3">
              <div className="space-y-1">
                <label htmlFor={nameId} className="block text-sm font-medium text-slate-800">
                  Name
                </label>
                <input
                  id={nameId}
                  value={name}
                  onChange={(e) => {
                    setName(e.target.value);
                    setError(null);
                  }}
                  autoComplete="off"
                  aria-invalid={shownError ? true : undefined}
                  aria-describedby={shownError ? errorId : undefined}
                  className="block w-full rounded-md border border-slate-400 px-2 py-1.5 text-sm focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600"
                />
                {shownError ? (
                  <p id={errorId} className="text-xs text-red-800">
                    {shownError}
                  </p>
                ) : null}
              </div>
              <label className="flex items-center gap-2 text-sm text-slate-800">
                <input type="checkbox" checked={makeDefault} onChange={(e) => setMakeDefault(e.target.checked)} className="h-4 w-4 accent-blue-700" />
                Open {VIEW_PAGE_LABELS[page]} on this view
              </label>
              <div className="flex justify-end gap-2">
                <Dialog.Close className={button}>Cancel</Dialog.Close>
                <button type="submit" disabled={saving} className="rounded-md bg-blue-700 px-3 py-1 text-sm font-medium text-white hover:bg-blue-800 focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 disabled:opacity-60">
                  {saving ? "Saving…" : "Save"}
                </button>
              </div>
            </form>
          </Dialog.Content>
        </Dialog.Portal>
      </Dialog.Root>
      <p role="status" className="text-xs text-slate-700">
        {saved ? `Saved as “${saved}”.` : ""}
      </p>
    </div>
  );
}
