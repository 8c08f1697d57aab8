/**
 * One column per model, one row per figure: for a scrape's model_name labels and for the per-request view's
 * response model fields, shown as text only. A cell is found by its figure's key and its model.
 */
export function ModelTable<T>({
  testId,
  caption,
  models,
  figures,
}: {
  testId: string;
  caption: string;
  models: readonly { model: string; value: T }[];
  figures: readonly [string, string, (value: T) => string | number][];
}) {
  return (
    <div className="table-scroll">
      <table data-testid={testId}>
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">figure</th>
            {models.map(({ model }) => (
              <th scope="col" key={model}>
                {model}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {figures.map(([label, key, value]) => (
            <tr key={key}>
              <th scope="row">{label}</th>
              {models.map((entry) => (
                <td key={entry.model} data-figure={key} data-model={entry.model}>
                  {value(entry.value)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
