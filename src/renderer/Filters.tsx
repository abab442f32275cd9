// The search's filters: a document type, tags typed or picked from every tag the index holds, and
// whether each hit explains its ranking.
import type { DocType } from '../shared/wire';
import { DOC_TYPE_TABLE } from '../shared/doc-types';
import { tagsOf } from './hooks/useSearch';

export interface FilterState {
  type: DocType | '';
  tags: string;
  explain: boolean;
}

export function Filters({
  value,
  onChange,
  tagCounts,
}: {
  value: FilterState;
  onChange: (f: FilterState) => void;
  tagCounts: [string, number][];
}) {
  const { type, tags, explain } = value;
  return (
    <div className="filters" role="toolbar" aria-label="Filters">
      <label>
        Type{' '}
        <select aria-label="Type" value={type} onChange={(e) => onChange({ ...value, type: e.target.value as DocType | '' })}>
          <option value="">any</option>
          {DOC_TYPE_TABLE.map(({ id, label }) => (
            <option key={id} value={id}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <label>
        Tags{' '}
        <input
          aria-label="Tags"
          placeholder="e.g. work, linux"
          value={tags}
          onChange={(e) => onChange({ ...value, tags: e.target.value })}
        />
      </label>
      <label>
        <select
          aria-label="Add a tag"
          value=""
          disabled={tagCounts.length === 0}
          onChange={(e) => {
            const t = e.target.value;
            const have = tagsOf(tags);
            if (t && !have.includes(t)) onChange({ ...value, tags: [...have, t].join(', ') });
          }}
        >
          <option value="">{tagCounts.length ? `all tags (${tagCounts.length})` : 'no tags yet'}</option>
          {tagCounts.map(([t, n]) => (
            <option key={t} value={t}>
              #{t} ({n})
            </option>
          ))}
        </select>
      </label>
      <label>
        <input type="checkbox" checked={explain} onChange={(e) => onChange({ ...value, explain: e.target.checked })} /> Explain ranking
      </label>
    </div>
  );
}
