// The notification settings page: turn push notifications on or off in this browser. The
// service worker (/sw.js) is registered for the whole site, the browser's push subscription is
// made with the server's VAPID public key (#push-data) and handed to the server, which keeps one
// per browser (notify/services.py: push_subscribe).
const data = JSON.parse(document.getElementById("push-data").textContent);
const status = document.getElementById("push-status");
const onButton = document.getElementById("push-on");
const offButton = document.getElementById("push-off");
const csrfToken = document.querySelector("[data-testid=notify-form] [name=csrfmiddlewaretoken]").value;

function keyBytes(base64url) {
  const base64 = base64url.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (base64url.length % 4)) % 4);
  return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
}

async function post(url, body) {
  const response = await fetch(url, {
    method: "POST", credentials: "same-origin",
    headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken },
    body: JSON.stringify(body),
  });
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(answer.message || gettext("The server refused this browser's subscription."));
  return answer;
}

function show(subscribed) {
  onButton.hidden = subscribed;
  offButton.hidden = !subscribed;
}

async function registration() {
  await navigator.serviceWorker.register("/sw.js", { scope: "/" });
  return navigator.serviceWorker.ready;
}

async function turnOn() {
  onButton.disabled = true;
  try {
    const permission = await Notification.requestPermission();
    if (permission !== "granted") {
      status.textContent = gettext("This browser does not allow notifications from this site: allow them in its settings, then try again.");
      return;
    }
    const worker = await registration();
    const subscription = await worker.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(data.publicKey) });
    await post("/account/notifications/push/", subscription.toJSON());
    status.textContent = gettext("Push notifications are on in this browser. Choose above which events they are for.");
    show(true);
  } catch (error) {
    status.textContent = `Push notifications could not be turned on in this browser: ${error.message}`;
  } finally {
    onButton.disabled = false;
  }
}

async function turnOff() {
  offButton.disabled = true;
  try {
    const worker = await registration();
    const subscription = await worker.pushManager.getSubscription();
    if (subscription) {
      await post("/account/notifications/push/remove/", { endpoint: subscription.endpoint });
      await subscription.unsubscribe();
    }
    status.textContent = gettext("Push notifications are off in this browser.");
    show(false);
  } catch (error) {
    status.textContent = `Push notifications could not be turned off: ${error.message}`;
  } finally {
    offButton.disabled = false;
  }
}

async function start() {
  if (!("serviceWorker" in navigator) || !("PushManager" in window) || !("Notification" in window)) {
    status.textContent = gettext("This browser cannot receive push notifications.");
    return;
  }
  const worker = await registration();
  show(Boolean(await worker.pushManager.getSubscription()));
  onButton.addEventListener("click", turnOn);
  offButton.addEventListener("click", turnOff);
}

start().catch((error) => { status.textContent = `Push notifications are not available here: ${error.message}`; });
