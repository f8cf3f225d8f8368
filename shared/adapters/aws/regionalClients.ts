// One AWS client per region, made on first use: hooks and gates may name functions and alarms in
// other regions (full ARNs); null is the function's own region (AWS_REGION).
export function regionalClients<C>(make: (region: string | null) => C): (region: string | null) => C {
  const clients = new Map<string, C>();
  return (region) => {
    const key = region ?? '';
    let c = clients.get(key);
    if (c === undefined) {
      c = make(region);
      clients.set(key, c);
    }
    return c;
  };
}
