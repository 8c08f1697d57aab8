import { useState } from 'react';
import { modelDirectoryUrl } from '../contract/validation';
import { MODEL_PAIRS } from '../contract/modelPairs';
import { useSpec } from './storeContext';

/** The model pair: the bundled one, Hub pairs by URL, or any two directories with one tokenizer. */
export function ModelPicker() {
  const pair = useSpec((s) => s.pair);
  const setPair = useSpec((s) => s.setPair);
  const [custom, setCustom] = useState({ draftUrl: '', targetUrl: '' });
  const [urlError, setUrlError] = useState<string | null>(null);
  const presetIndex = MODEL_PAIRS.findIndex((candidate) => candidate.label === pair.label);
  return (
    <div className="row">
      <label className="field wide" htmlFor="model-pair">
        <span>Model pair</span>
        <select
          id="model-pair"
          value={presetIndex === -1 ? 'custom' : String(presetIndex)}
          onChange={(event) => {
            const chosen = MODEL_PAIRS[Number(event.target.value)];
            if (chosen) setPair(chosen);
          }}
        >
          {MODEL_PAIRS.map((candidate, index) => (
            <option key={candidate.label} value={String(index)}>
              {candidate.label}
            </option>
          ))}
          <option value="custom" disabled>
            Custom pair (below)
          </option>
        </select>
      </label>
      <label className="field address" htmlFor="draft-url">
        <span>Draft URL</span>
        <input
          id="draft-url"
          type="url"
          placeholder="https://…/draft/"
          value={custom.draftUrl}
          onChange={(event) => setCustom({ ...custom, draftUrl: event.target.value })}
        />
      </label>
      <label className="field address" htmlFor="target-url">
        <span>Target URL</span>
        <input
          id="target-url"
          type="url"
          placeholder="https://…/target/"
          value={custom.targetUrl}
          onChange={(event) => setCustom({ ...custom, targetUrl: event.target.value })}
        />
      </label>
      <button
        type="button"
        disabled={!custom.draftUrl || !custom.targetUrl}
        onClick={() => {
          // Text that is not an absolute web address would be read relative to the app and fetch its own page.
          const draft = modelDirectoryUrl(custom.draftUrl);
          const target = modelDirectoryUrl(custom.targetUrl);
          const problem =
            'error' in draft ? `Draft URL: ${draft.error}` : 'error' in target ? `Target URL: ${target.error}` : null;
          setUrlError(problem);
          if ('url' in draft && 'url' in target) {
            setPair({
              label: `Custom: ${draft.url.href} → ${target.url.href}`,
              draftUrl: draft.url.href,
              targetUrl: target.url.href,
              cache: true,
              modelFile: 'onnx/model.onnx',
            });
          }
        }}
      >
        Load custom pair
      </button>
      {urlError && (
        <p className="error" role="alert" data-testid="url-error">
          {urlError}
        </p>
      )}
    </div>
  );
}
