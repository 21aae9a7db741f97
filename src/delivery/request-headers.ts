// The headers of an HTTP message's request, in one place: the sender sends them and the events API
// shows them for each attempt, so what is shown is what was sent.

/** Every header a request carries, given the ones that sign it (domain/notification-signature.ts). */
export function requestHeaders(contentType: string, signing: Record<string, string>): Record<string, string> {
  return { 'content-type': contentType, 'user-agent': 'Quipu-Notifications/1.0', ...signing };
}
