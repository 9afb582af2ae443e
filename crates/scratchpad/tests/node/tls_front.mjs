// HTTPS in front of a plain-HTTP MCP server, for the proxy's HTTPS-upstream test: terminates TLS with
// the given certificate, refuses requests without the expected bearer token, and passes everything else
// through, event streams included.
//
// Usage: node tls_front.mjs CERT_PEM KEY_PEM TARGET_PORT TOKEN
// Prints `listening on port N` once it accepts connections.
import fs from "node:fs";
import http from "node:http";
import https from "node:https";

const [cert, key, targetPort, token] = process.argv.slice(2);
const tls = { cert: fs.readFileSync(cert), key: fs.readFileSync(key) };

const server = https.createServer(tls, (request, response) => {
  if (request.headers.authorization !== `Bearer ${token}`) {
    response.writeHead(401, { "www-authenticate": "Bearer" });
    response.end("missing or wrong bearer token\n");
    return;
  }
  const headers = { ...request.headers, host: `127.0.0.1:${targetPort}` };
  delete headers.authorization;
  const options = { host: "127.0.0.1", port: Number(targetPort), path: request.url, method: request.method, headers };
  const forward = http.request(options, (answer) => {
    response.writeHead(answer.statusCode, answer.headers);
    answer.pipe(response);
  });
  forward.on("error", (err) => {
    if (!response.headersSent) response.writeHead(502);
    response.end(String(err));
  });
  request.pipe(forward);
});

server.listen(0, "127.0.0.1", () => console.log(`listening on port ${server.address().port}`));
