// app.js - dashboard entry point: asks the server who it is and shows it.
const status = document.getElementById('status');

async function main() {
  const res = await fetch('/healthz');
  if (!res.ok) throw new Error(`server answered ${res.status}`);
  const health = await res.json();
  document.getElementById('version').textContent = `server ${health.version}`;
  status.textContent = `Server status: ${health.status}`;
}

main().catch((err) => {
  status.textContent = `Cannot reach the schedio server: ${err.message}`;
});
