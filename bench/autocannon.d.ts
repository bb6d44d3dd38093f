// The part of autocannon 8's API bench/http.ts uses (the package ships no types).
declare module "autocannon" {
  interface AutocannonRequest {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
    /** A function, or with `workers` a path to a module exporting one. */
    setupRequest?: string | ((req: AutocannonRequest) => AutocannonRequest);
  }
  interface AutocannonOptions {
    url: string;
    connections?: number;
    amount?: number;
    duration?: number;
    workers?: number;
    requests?: AutocannonRequest[];
  }
  interface AutocannonResult {
    "2xx": number;
    non2xx: number;
    errors: number;
    duration: number;
    latency: { p50: number; p99: number };
  }
  function autocannon(opts: AutocannonOptions): Promise<AutocannonResult>;
  export default autocannon;
}
