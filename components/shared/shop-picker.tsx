"use client";

import { useCombobox } from "downshift";
import { useDeferredValue, useId, useMemo, useState } from "react";
import { useShopDirectory } from "./shop-directory";
import { groupState, narrow, type PickerOption, shopTree, toggleOption } from "./shop-options";

/** At most this many shops are listed at once; the search narrows the rest. */
const LISTED_SHOPS = 100;

interface ShopPickerProps {
  /** the user's access list: the only shops that can be chosen */
  shops: readonly string[];
  /** the chosen shops (from the URL) */
  value: readonly string[];
  /** the new choice (empty: every shop); called when the list closes, or at once when it is closed */
  onChange: (shops: string[]) => void;
}

/**
 * The shop filter of every page (docs/architecture.md, "Shop picker"): a combobox named "Shops"
 * (downshift's useCombobox: the WAI-ARIA 1.2 combobox and listbox pattern) whose text matches shop
 * code, merchant id or name and parent id or name. Options are grouped by parent, then merchant,
 * and a group's own "All shops of ..." option chooses all of its shops. While the list is open the
 * choice is a draft, applied to the view when it closes; chips, "Remove <shop>" and "Clear shops"
 * apply at once. Backspace in an empty field removes the last chip.
 */
export function ShopPicker({ shops, value, onChange }: ShopPickerProps) {
  const entries = useShopDirectory(shops);
  const tree = useMemo(() => shopTree(entries), [entries]);
  const [search, setSearch] = useState("");
  const deferredSearch = useDeferredValue(search);
  const listed = useMemo(() => narrow(tree, deferredSearch, LISTED_SHOPS), [tree, deferredSearch]);
  const [draft, setDraft] = useState<string[] | null>(null);
  // A choice applied but not yet back from the URL; the URL's own value replaces it when it comes.
  const [applied, setApplied] = useState<readonly string[] | null>(null);
  const [seen, setSeen] = useState(value);
  if (!sameList(seen, value)) {
    setSeen(value);
    setApplied(null);
  }
  const current = applied ?? value;
  const chosen = draft ?? current;
  const chosenSet = useMemo(() => new Set(chosen), [chosen]);
  const statusId = useId();

  const commit = (next: readonly string[]) => {
    if (sameList(next, current)) return;
    setApplied(next);
    onChange([...next]);
  };
  /**
   * A change of the choice: while the list is open it edits the draft, otherwise it applies at
   * once (to the latest choice, which the URL may not show yet).
   */
  const change = (edit: (shops: readonly string[]) => string[]) => {
    if (draft) setDraft(edit(draft));
    else commit(edit(current));
  };

  const { isOpen, highlightedIndex, getLabelProps, getInputProps, getMenuProps, getItemProps, getToggleButtonProps } = useCombobox<PickerOption>({
    items: listed.options,
    itemToString: (o) => (o ? (o.type === "shop" ? o.code : o.title) : ""),
    itemToKey: (o) => o?.key ?? null,
    selectedItem: null,
    // The field's text stays downshift's own (a controlled one loses keys typed quickly); the
    // search follows it.
    onInputValueChange: ({ inputValue }) => setSearch(inputValue ?? ""),
    stateReducer: (state, { type, changes }) => {
      switch (type) {
        // Choosing an option keeps the list open and the typed text, so several can be chosen.
        case useCombobox.stateChangeTypes.InputKeyDownEnter:
        case useCombobox.stateChangeTypes.ItemClick:
          return { ...changes, isOpen: true, highlightedIndex: state.highlightedIndex, inputValue: state.inputValue };
        // The selected item is always null here (the choice is a list): no text follows from it.
        case useCombobox.stateChangeTypes.ControlledPropUpdatedSelectedItem:
          return { ...changes, inputValue: state.inputValue };
        default:
          // Closing ends the search: the field is empty again.
          return state.isOpen && changes.isOpen === false ? { ...changes, inputValue: "" } : changes;
      }
    },
    onStateChange: ({ type, selectedItem }) => {
      if ((type === useCombobox.stateChangeTypes.ItemClick || type === useCombobox.stateChangeTypes.InputKeyDownEnter) && selectedItem) {
        setDraft((d) => toggleOption(d ?? current, selectedItem));
      }
    },
    onIsOpenChange: ({ isOpen: open }) => {
      if (open) {
        setDraft([...current]);
        return;
      }
      // Closed (Escape, Tab, a click elsewhere): the draft becomes the view's choice.
      setDraft(null);
      if (draft) commit(draft);
    },
  });

  const summary = value.length ? `${value.length} of ${shops.length} shops chosen` : `All ${shops.length} shops`;
  const listStatus =
    listed.matches === 0
      ? `No shop matches “${deferredSearch.trim()}”.`
      : listed.hidden > 0
        ? `${listed.matches} shops match; the first ${listed.matches - listed.hidden} are listed. Type more to narrow them.`
        : `${listed.matches} ${listed.matches === 1 ? "shop matches" : "shops match"}.`;

  let index = 0;
  return (
    <div className="relative space-y-1 sm:col-span-2">
      <div className="flex items-baseline justify-between gap-2">
        <label {...getLabelProps()} className="block text-sm font-medium text-slate-800">
          Shops
        </label>
        <span id={statusId} className="text-xs text-slate-700">
          {summary}
        </span>
      </div>
      {chosen.length ? (
        <div className="flex max-h-24 flex-wrap items-center gap-1 overflow-auto">
          <ul aria-label="Chosen shops" className="contents">
            {chosen.map((code) => (
              <li key={code} className="inline-flex items-center gap-1 rounded-full border border-blue-300 bg-blue-50 py-0.5 pr-0.5 pl-2 font-mono text-xs text-blue-950">
                {code}
                <button
                  type="button"
                  aria-label={`Remove ${code}`}
                  onClick={() => change((current) => current.filter((s) => s !== code))}
                  className="rounded-full px-1.5 text-blue-900 hover:bg-blue-200 focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600"
                >
                  <span aria-hidden="true">×</span>
                </button>
              </li>
            ))}
          </ul>
          <button
            type="button"
            onClick={() => change(() => [])}
            className="rounded-md px-2 py-0.5 text-xs text-blue-800 underline hover:bg-slate-100 focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600"
          >
            Clear shops
          </button>
        </div>
      ) : null}
      <div className="flex rounded-md border border-slate-400 bg-white focus-within:ring-2 focus-within:ring-blue-600">
        <input
          {...getInputProps({
            "aria-describedby": statusId,
            onKeyDown: (e) => {
              if (e.key === "Backspace" && search === "" && chosen.length) {
                change((current) => current.slice(0, -1));
              }
            },
          })}
          placeholder="Search shop, merchant or parent"
          spellCheck={false}
          autoComplete="off"
          className="block w-full min-w-0 rounded-md bg-transparent px-2 py-1.5 text-sm text-slate-900 focus:outline-none"
        />
        <button
          type="button"
          {...getToggleButtonProps({ "aria-label": isOpen ? "Close the shop list" : "Open the shop list" })}
          className="px-2 text-slate-700 hover:bg-slate-100 focus:outline-none"
        >
          <span aria-hidden="true">{isOpen ? "▴" : "▾"}</span>
        </button>
      </div>
      <div
        {...getMenuProps({ "aria-multiselectable": true })}
        // The search the listed options answer (npm run bench:browser times keystrokes by it).
        data-search={deferredSearch}
        className={`${isOpen ? "" : "hidden"} absolute right-0 left-0 z-30 mt-1 max-h-80 overflow-auto rounded-md border border-slate-300 bg-white py-1 text-sm shadow-lg`}
      >
        {isOpen
          ? listed.sections.map((section, n) => (
              <ul key={section.key} role="group" aria-labelledby={`${statusId}-g${n}`} className={section.nested ? "pl-3" : ""}>
                <li role="presentation" id={`${statusId}-g${n}`} className="px-2 pt-1.5 text-xs font-semibold text-slate-700">
                  {section.heading}
                </li>
                {section.options.map((option) => {
                  const i = index++;
                  const state = option.type === "shop" ? (chosenSet.has(option.code) ? "all" : "none") : groupState(chosenSet, option.shops);
                  return (
                    // getItemProps gives the role (option) and aria-selected (the highlighted one).
                    // eslint-disable-next-line jsx-a11y/role-supports-aria-props
                    <li
                      key={option.key}
                      {...getItemProps({ item: option, index: i })}
                      aria-checked={state === "all" ? true : state === "some" ? "mixed" : false}
                      className={`flex cursor-pointer items-center gap-2 px-2 py-1 ${highlightedIndex === i ? "bg-blue-100 text-blue-950" : "text-slate-900"}`}
                    >
                      <span aria-hidden="true" className="w-4 text-center text-blue-800">
                        {state === "all" ? "✓" : state === "some" ? "–" : ""}
                      </span>
                      {option.type === "shop" ? (
                        <span className="font-mono text-xs">{option.code}</span>
                      ) : (
                        <span>
                          All shops of {option.title}
                          <span className="text-slate-600">
                            {" "}
                            · {option.shops.length} {option.shops.length === 1 ? "shop" : "shops"}
                          </span>
                        </span>
                      )}
                    </li>
                  );
                })}
              </ul>
            ))
          : null}
      </div>
      <p aria-live="polite" className={isOpen ? "text-xs text-slate-700" : "sr-only"}>
        {isOpen ? listStatus : ""}
      </p>
    </div>
  );
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((s, i) => s === b[i]);
}
