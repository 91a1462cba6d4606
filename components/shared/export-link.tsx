/** The CSV download of a whole selection; disabled until there is something to export. */
export function ExportLink({ href, total }: { href: string; total: number | undefined }) {
  const empty = total === undefined || total === 0;
  return (
    <a
      href={href}
      download
      aria-disabled={empty ? true : undefined}
      onClick={(e) => {
        if (empty) e.preventDefault();
      }}
      className={`inline-flex h-9 items-center rounded-md bg-blue-700 px-3 text-sm font-medium text-white hover:bg-blue-800 focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 focus-visible:ring-offset-2 ${empty ? "opacity-50" : ""}`}
    >
      Export CSV{total !== undefined ? ` (${new Intl.NumberFormat("en").format(total)} rows)` : ""}
    </a>
  );
}
