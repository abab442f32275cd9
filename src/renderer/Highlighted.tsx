/** Text with the given [start, end) ranges marked. */
export function Highlighted({ text, ranges }: { text: string; ranges: [number, number][] }) {
  const parts: React.ReactNode[] = [];
  let at = 0;
  [...ranges]
    .sort((a, b) => a[0] - b[0])
    .forEach(([s, e], i) => {
      if (s < at) return;
      if (s > at) parts.push(text.slice(at, s));
      parts.push(<mark key={i}>{text.slice(s, e)}</mark>);
      at = e;
    });
  parts.push(text.slice(at));
  return <>{parts}</>;
}
