// Boardhall's service worker (served at /sw.js, scope "/"): shows the push messages the server
// sends (notify/delivery.py: title, body, url, unsubscribe, tag) while no page of the site may
// be open. A click opens the page the message is about; its "Turn these off" action calls the
// message's one-click unsubscribe link.
self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

self.addEventListener("push", (event) => {
  let message = {};
  try {
    message = event.data ? event.data.json() : {};
  } catch (error) {
    message = { body: event.data ? event.data.text() : "" };
  }
  const options = {
    body: message.body || "",
    tag: message.tag || undefined,
    icon: "/static/favicon.svg",
    data: { url: message.url || "/", unsubscribe: message.unsubscribe || "" },
  };
  if (message.unsubscribe) options.actions = [{ action: "unsubscribe", title: "Turn these off" }];
  event.waitUntil(self.registration.showNotification(message.title || "Boardhall", options));
});

self.addEventListener("notificationclick", (event) => {
  const { url, unsubscribe } = event.notification.data || {};
  event.notification.close();
  if (event.action === "unsubscribe" && unsubscribe) {
    event.waitUntil(fetch(unsubscribe, { method: "POST", credentials: "omit" }));
    return;
  }
  event.waitUntil((async () => {
    const target = new URL(url || "/", self.location.origin);
    if (target.origin !== self.location.origin) return;
    const open = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
    const same = open.find((client) => client.url === target.href);
    if (same) return same.focus();
    return self.clients.openWindow(target.href);
  })());
});
