"use client";

import { useCombobox } from "downshift";
import { useMemo, useState } from "react";

/** At most this many zones are listed at once; typing narrows the rest. */
const LISTED = 80;

/** "new york" and "new_york" both find America/New_York; case does not matter. */
const key = (text: string) => text.toLowerCase().replace(/[_\s]+/g, " ");

/**
 * The time zone of the settings page: a searchable list of the IANA zones (downshift's
 * useCombobox, the WAI-ARIA combobox pattern) named "Time zone". Typing any part of a name
 * narrows the list; the value is always one of the zones.
 */
export function TimeZoneField({ zones, value, onChange, describedBy }: { zones: readonly string[]; value: string; onChange: (zone: string) => void; describedBy?: string }) {
  // What is typed, followed from downshift (the field's text stays its own: a controlled one loses keys typed quickly).
  const [text, setText] = useState(value);
  const matches = useMemo(() => {
    const wanted = key(text.trim());
    // The whole list while the field still shows the chosen zone: the person is browsing.
    const all = wanted === "" || text === value ? zones : zones.filter((z) => key(z).includes(wanted));
    return all.slice(0, LISTED);
  }, [zones, text, value]);
  const { isOpen, getLabelProps, getInputProps, getMenuProps, getItemProps, highlightedIndex, getToggleButtonProps } = useCombobox<string>({
    items: matches,
    selectedItem: value,
    initialInputValue: value,
    itemToString: (zone) => zone ?? "",
    onInputValueChange: ({ inputValue }) => setText(inputValue ?? ""),
    onSelectedItemChange: ({ selectedItem }) => {
      if (selectedItem) onChange(selectedItem);
    },
    stateReducer: (state, { changes }) => {
      // Closed without a choice (Escape, a click elsewhere): the zone stays, and the field shows it.
      const chose = changes.selectedItem && changes.selectedItem !== state.selectedItem;
      if (!chose && state.isOpen && changes.isOpen === false) return { ...changes, selectedItem: value, inputValue: value };
      return changes;
    },
  });
  return (
    <div className="relative">
      <label {...getLabelProps()} className="mb-1 block text-sm font-medium">
        Time zone
      </label>
      <div className="flex max-w-sm">
        <input
          {...getInputProps({
            "aria-describedby": describedBy,
            // Typing replaces the zone shown: the person is looking for another.
            onFocus: (e) => e.currentTarget.select(),
          })}
          className="w-full rounded-l-md border border-slate-400 px-2 py-1.5 text-sm focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600"
          spellCheck={false}
        />
        <button
          type="button"
          {...getToggleButtonProps()}
          aria-label="Show the time zones"
          className="rounded-r-md border border-l-0 border-slate-400 px-2 text-sm hover:bg-slate-100 focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600"
        >
          ▾
        </button>
      </div>
      <ul {...getMenuProps()} className={`absolute z-20 mt-1 max-h-72 w-full max-w-sm overflow-auto rounded-md border border-slate-300 bg-white shadow ${isOpen ? "" : "hidden"}`}>
        {isOpen && matches.length === 0 ? <li className="px-3 py-2 text-sm text-slate-700">No time zone matches “{text.trim()}”.</li> : null}
        {isOpen
          ? matches.map((zone, index) => (
              <li
                key={zone}
                {...getItemProps({ item: zone, index })}
                className={`cursor-pointer px-3 py-1.5 text-sm ${highlightedIndex === index ? "bg-blue-100 text-blue-950" : ""} ${zone === value ? "font-semibold" : ""}`}
              >
                {zone.replace(/_/g, " ")}
              </li>
            ))
          : null}
      </ul>
    </div>
  );
}
