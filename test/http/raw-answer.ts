// One HTTP/1.1 exchange on loopback with the headers exactly as given, and the
// answer as a client sees it on the wire: status, raw headers in order (Date
// left out, it differs between runs) and the body as text. For comparing two
// servers' answers byte for byte.
import { request as httpRequest } from "node:http";

export interface RawAnswer {
  status: number;
  headers: string[];
  body: string;
}

export function rawRequest(port: number, method: string, path: string, headers: Record<string, string> = {}, body: Buffer | string = ""): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port, path, method, headers }, (res) => {
      const parts: Buffer[] = [];
      res.on("data", (c: Buffer) => parts.push(c));
      res.on("end", () => {
        const raw: string[] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) if (res.rawHeaders[i] !== "Date") raw.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`);
        resolve({ status: res.statusCode ?? 0, headers: raw, body: Buffer.concat(parts).toString("utf8") });
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}
