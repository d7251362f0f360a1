// Websockets that come back: exponential back-off reconnects, and for a match, versions.
//
// The server sends the full state of a match in every "state" message, numbered by version.
// MatchSocket keeps the newest version it has seen, drops older states (messages may arrive out
// of order), asks for the full state ("sync") when it notices a skipped version and after every
// reconnect, and pings every 20 s so that a dead connection is noticed and presence stays fresh.
//
// A socket counts as open (or back) once the server has sent it something other than "try
// again later": the server accepts a socket it cannot serve (Redis or the database is away),
// says "unavailable" and closes it with TRY_AGAIN_LATER, and the page keeps backing off.
//
// Events (EventTarget; `detail` holds the message):
//   "open", "lost" (detail.code: the close code, TRY_AGAIN_LATER when the server's services are
//   away), "reconnected", "closed" (for good: the server refused us, detail.code)
//   "message" (every parsed message), and for MatchSocket "state", "presence", "error".

export const NOT_FOUND = 4404;
export const SIGNED_OUT = 4403; // a socket of a page whose browser has logged out (the server closed it)

// This page's own "Log out" form is on its way: its answer brings the signed-out page, and
// showing one now would cancel it.
let loggingOut = false;
document.addEventListener("submit", (event) => {
  if (new URL(event.target.action, location.href).pathname === "/logout/") loggingOut = true;
});

/** This browser logged out (in this tab or another): show this page again, signed out. */
export function showSignedOut() {
  if (!loggingOut) location.replace(location.href); // a GET, even where a form's answer is shown
}
export const TRY_AGAIN_LATER = 4503; // live updates interrupted: the server cannot reach Redis or its database

export function socketUrl(path) {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}${path}`;
}

export class ReconnectingSocket extends EventTarget {
  constructor(url, { pingEvery = 0, pongWithin = 10000, minDelay = 500, maxDelay = 15000 } = {}) {
    super();
    Object.assign(this, { url, pingEvery, pongWithin, minDelay, maxDelay });
    this.ws = null;
    this.lost = false;
    this.stopped = false;
    this.attempts = 0;
    this.timers = {};
  }

  start() {
    this.stopped = false;
    this.connect();
    // The browser knows before the socket does: say so at once, and when the network is back,
    // try now rather than at the end of a long back-off.
    window.addEventListener("offline", () => {
      if (!this.stopped && this.ws !== null) this.drop();
    });
    window.addEventListener("online", () => {
      if (this.lost && !this.stopped && this.ws === null) {
        clearTimeout(this.timers.retry);
        this.connect();
      }
    });
    return this;
  }

  stop() {
    this.stopped = true;
    this.clearTimers();
    if (this.ws) this.ws.close();
    this.ws = null;
  }

  get connected() {
    return this.ws !== null && this.ws.readyState === WebSocket.OPEN;
  }

  /** True while the page's first connection is being opened (not after a loss). */
  get connecting() {
    return this.ws !== null && this.ws.readyState === WebSocket.CONNECTING && !this.lost;
  }

  /** Send a message now; false when the socket is not open (the caller tells the person). */
  send(message) {
    if (!this.connected) return false;
    this.ws.send(JSON.stringify(message));
    return true;
  }

  emit(type, detail = null) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }

  connect() {
    const ws = new WebSocket(this.url);
    this.ws = ws;
    let served = false;
    ws.addEventListener("open", () => {
      if (this.ws !== ws) return;
      this.schedulePing();
      this.opened(this.lost);
    });
    ws.addEventListener("message", (event) => {
      if (this.ws !== ws) return;
      clearTimeout(this.timers.pong);
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      if (!served && !(message.type === "error" && message.code === "unavailable")) {
        served = true;
        const wasLost = this.lost;
        this.lost = false;
        this.lostCode = null;
        this.attempts = 0;
        this.emit(wasLost ? "reconnected" : "open");
      }
      this.emit("message", message);
      this.received(message);
    });
    ws.addEventListener("close", (event) => {
      if (this.ws !== ws) return;
      if (event.code === NOT_FOUND || event.code === SIGNED_OUT) {
        this.stopped = true;
        this.ws = null;
        this.clearTimers();
        this.emit("closed", { code: event.code });
        return;
      }
      this.drop(event.code);
    });
  }

  /** Forget the current connection and try again after a growing, jittered delay. */
  drop(code = null) {
    const ws = this.ws;
    this.ws = null;
    this.clearTimers();
    if (ws && ws.readyState < WebSocket.CLOSING) ws.close();
    if (this.stopped) return;
    if (!this.lost || (code === TRY_AGAIN_LATER && this.lostCode !== code)) {
      this.lost = true;
      this.lostCode = code;
      this.emit("lost", { code });
    }
    const delay = Math.min(this.maxDelay, this.minDelay * 2 ** this.attempts) * (0.75 + Math.random() / 2);
    this.attempts += 1;
    this.timers.retry = setTimeout(() => this.connect(), delay);
  }

  schedulePing() {
    if (!this.pingEvery) return;
    clearTimeout(this.timers.ping);
    this.timers.ping = setTimeout(() => {
      if (!this.send({ type: "ping" })) return;
      this.timers.pong = setTimeout(() => this.drop(), this.pongWithin);
      this.schedulePing();
    }, this.pingEvery);
  }

  clearTimers() {
    Object.values(this.timers).forEach(clearTimeout);
    this.timers = {};
  }

  // Hooks for subclasses.
  opened(wasLost) {}
  received(message) {}
}

export class MatchSocket extends ReconnectingSocket {
  constructor(url, options = {}) {
    super(url, { pingEvery: 20000, ...options });
    this.version = -1;
  }

  /** Play `action` for our seat at the version we have drawn. */
  sendAction(action) {
    return this.send({ type: "action", action, version: this.version });
  }

  sync() {
    return this.send({ type: "sync", version: this.version });
  }

  opened(wasLost) {
    // The server sends the state on connect too; saying which version we hold keeps the
    // protocol's promise that a reconnecting client always resynchronises.
    if (wasLost && this.version >= 0) this.sync();
  }

  received(message) {
    if (message.type === "state") {
      this.acceptState(message);
    } else if (message.type === "presence") {
      this.emit("presence", message);
    } else if (message.type === "chat" || message.type === "notice") {
      this.emit(message.type, message);
    } else if (message.type === "error") {
      if (message.state) this.acceptState(message.state);
      this.emit("error", message);
    }
  }

  acceptState(message) {
    // Equal versions are applied: joining, offers and rematch offers change a match
    // without raising its version.
    if (message.version < this.version) return;
    const skipped = this.version >= 0 && message.version > this.version + 1;
    this.version = message.version;
    this.emit("state", message);
    if (skipped) this.sync();
  }
}
