/**
 * How much of a large report table the page's own HTML carries: the top-left corner a screen shows
 * (the table's box is at most 70% of the window high). The rest is drawn in the browser as soon as
 * the page is live (docs/performance.md, "The report page's own time").
 */
export const FIRST_ROWS = 30;
/** Columns of numbers (an amount has one per currency), the row headers aside. */
export const FIRST_COLUMNS = 20;
