import type { Counters } from "../lib/api";
import { tokens, usd } from "../lib/format";

/** The header cells of a usage table's counter columns: cost, calls, input and output tokens. */
export function CounterHeads() {
  return (
    <>
      <th scope="col" class="num">
        Cost
      </th>
      <th scope="col" class="num">
        Calls
      </th>
      <th scope="col" class="num">
        Input tokens
      </th>
      <th scope="col" class="num">
        Output tokens
      </th>
    </>
  );
}

/** One row's counter cells, in CounterHeads' order. */
export function CounterCells(props: { counters: Pick<Counters, "cost_usd" | "calls" | "input_tokens" | "output_tokens"> }) {
  const c = props.counters;
  return (
    <>
      <td class="num">{usd(c.cost_usd)}</td>
      <td class="num">{tokens(c.calls)}</td>
      <td class="num">{tokens(c.input_tokens)}</td>
      <td class="num">{tokens(c.output_tokens)}</td>
    </>
  );
}
