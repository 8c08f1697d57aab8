/**
 * One panel's error boundary: a panel that throws while rendering (a stored record the checks missed, a
 * chart fed something odd) shows what failed and the ways out, Reset, Clear history and Load the bundled
 * pair, instead of blanking the whole page. "Try again" renders the panel afresh.
 */
import { Component, type ContextType, type ReactNode } from 'react';
import { BUNDLED_PAIR } from '../contract/modelPairs';
import { StoreContext } from './storeContext';

interface Props {
  /** The panel's name, as the message says it: "Run history". */
  name: string;
  children: ReactNode;
}

export class PanelBoundary extends Component<Props, { error: Error | null }> {
  static override contextType = StoreContext;
  declare context: ContextType<typeof StoreContext>;
  override state: { error: Error | null } = { error: null };

  static getDerivedStateFromError(error: unknown): { error: Error } {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  override componentDidCatch(error: unknown): void {
    console.error(`SpecLab: the ${this.props.name} panel failed`, error);
  }

  private recover(action: (store: NonNullable<ContextType<typeof StoreContext>>) => void): void {
    if (this.context) action(this.context);
    this.setState({ error: null });
  }

  override render(): ReactNode {
    const { error } = this.state;
    if (error === null) return this.props.children;
    return (
      <section className="panel-failed" role="alert" data-testid="panel-failed" data-panel={this.props.name}>
        <p className="error">
          The {this.props.name} panel failed: {error.message.slice(0, 300)}. The rest of the page still works.
        </p>
        <button type="button" onClick={() => this.recover(() => undefined)}>
          Try again
        </button>
        <button type="button" onClick={() => this.recover((store) => store.getState().reset())}>
          Reset
        </button>
        <button type="button" onClick={() => this.recover((store) => store.getState().clearHistory())}>
          Clear history
        </button>
        <button type="button" onClick={() => this.recover((store) => store.getState().setPair(BUNDLED_PAIR))}>
          Load the bundled pair
        </button>
      </section>
    );
  }
}
