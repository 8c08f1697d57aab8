/**
 * What a reader cannot read in the page's SVGs (the charts' axes, ticks and labels, the tree's nodes): a text
 * cut by its box (its SVG, or a tree node's rect), or two texts of one SVG over each other by more than 2 px
 * (a chart's crowded tick labels, a tick under its axis title). Runs in the page: `page.evaluate(svgTextProblems)`.
 */
export function svgTextProblems(): string[] {
  const drawn = [...document.querySelectorAll('svg text')]
    .filter((text) => text.textContent?.trim() && text.getBoundingClientRect().width > 0)
    .map((text) => ({ text, box: text.getBoundingClientRect(), svg: text.closest('svg') }));
  const problems = drawn.flatMap(({ text, box }) => {
    const frame = (text.closest('g[data-node]')?.querySelector('rect') ?? text.closest('svg'))?.getBoundingClientRect();
    if (!frame || frame.width === 0) return [];
    const inside =
      box.left >= frame.left - 0.5 &&
      box.right <= frame.right + 0.5 &&
      box.top >= frame.top - 0.5 &&
      box.bottom <= frame.bottom + 0.5;
    const chart = text.closest('[data-chart]')?.getAttribute('data-chart') ?? 'an svg';
    return inside ? [] : [`"${text.textContent}" in ${chart}`];
  });
  drawn.forEach((a, i) =>
    drawn.slice(i + 1).forEach((b) => {
      const across = Math.min(a.box.right, b.box.right) - Math.max(a.box.left, b.box.left);
      const down = Math.min(a.box.bottom, b.box.bottom) - Math.max(a.box.top, b.box.top);
      if (a.svg === b.svg && across > 2 && down > 2)
        problems.push(`"${a.text.textContent}" over "${b.text.textContent}"`);
    }),
  );
  return problems;
}
