// readable-stream ships no types; the sandbox's `stream` builtin re-exports it as Node's `stream`.
declare module 'readable-stream' {
  const stream: any;
  export default stream;
}
