// htm bound to preact's h (htm's own preact binding): JSX-like templates in plain TypeScript, no
// compile step of their own.
export { html } from 'htm/preact';
