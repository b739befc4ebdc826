import { Link } from '../lib/router';

/** One tab of a {@link TabBar}: its id, its label, and the hint shown under the bar while it is selected. */
export interface Tab<T extends string> {
  tab: T;
  label: string;
  hint: string;
}

/**
 * A page's tabs and the selected tab's hint. Each tab is a link to its own URL (so it can be
 * bookmarked and the back button works) with the WAI-ARIA tab roles (`tablist`, `tab`,
 * `aria-selected`); the page renders the `tabpanel` itself.
 *
 * @param label - the tab list's accessible name.
 * @param hrefOf - the URL of a tab.
 * @param testIdPrefix - each tab's `data-testid` is `<prefix>-<tab>`.
 */
export function TabBar<T extends string>({
  tabs,
  selected,
  label,
  hrefOf,
  testIdPrefix,
}: {
  tabs: ReadonlyArray<Tab<T>>;
  selected: T;
  label: string;
  hrefOf: (tab: T) => string;
  testIdPrefix: string;
}) {
  const current = tabs.find((t) => t.tab === selected) ?? tabs[0];
  return (
    <>
      <div className="tabs" role="tablist" aria-label={label}>
        {tabs.map((t) => (
          <Link
            key={t.tab}
            href={hrefOf(t.tab)}
            role="tab"
            data-testid={`${testIdPrefix}-${t.tab}`}
            aria-selected={t.tab === selected}
            className={t.tab === selected ? 'tab active' : 'tab'}
          >
            {t.label}
          </Link>
        ))}
      </div>
      {current && <p className="muted small">{current.hint}</p>}
    </>
  );
}
