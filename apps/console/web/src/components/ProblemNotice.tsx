import { proposalProblem } from '../lib/proposals';

/**
 * An API refusal of a proposal or match command as a notice (`role="alert"`): what it means in
 * words, each field the problem names (with `labelOf` for the form's names of the API's paths),
 * and the problem's stable code.
 *
 * @param prefix - what did not happen, before the words: "Not proposed".
 */
export function ProblemNotice({
  error,
  prefix,
  testId,
  labelOf = (path) => path,
}: {
  error: unknown;
  prefix: string;
  testId: string;
  labelOf?: (path: string) => string;
}) {
  const problem = proposalProblem(error);
  return (
    <div className="notice notice-danger problem" role="alert" data-testid={testId} data-code={problem.code ?? undefined}>
      <span>
        <strong>{prefix}.</strong> {problem.message}
      </span>
      {problem.fields.length > 0 && (
        <ul className="problem-fields">
          {problem.fields.map((field) => (
            <li key={`${field.path}:${field.message}`}>
              <strong>{labelOf(field.path)}</strong>: {field.message}
            </li>
          ))}
        </ul>
      )}
      {problem.code && <span className="code small">{problem.code}</span>}
    </div>
  );
}
