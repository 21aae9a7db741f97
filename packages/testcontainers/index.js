// QuipuContainer: Quipu's image (docs/containers.md) as a Testcontainers module. It starts a
// container on a fresh volume, with a demo account and an operator token chosen here (DEMO_*,
// OPERATOR_TOKEN), waits until /readyz answers 200, and hands back the base URL, those credentials
// and sandboxAccount(), which makes a throwaway account for one test (POST /sandbox/accounts,
// behind the operator token: the container's listener is not on the test's loopback).
import { randomBytes, randomUUID } from 'node:crypto';
import { AbstractStartedContainer, GenericContainer, Wait } from 'testcontainers';

/** The port Quipu listens on inside its image. */
export const QUIPU_PORT = 3000;

export class QuipuContainer extends GenericContainer {
  #credentials = {
    apiKey: randomUUID(),
    // A receiver secret: 40 hexadecimal digits (docs/configuration.md, DEMO_SECRET).
    secret: randomBytes(20).toString('hex'),
    operatorToken: randomBytes(32).toString('hex'),
  };

  /** @param {string} image Quipu's image, built as docs/containers.md says (`npm pack && docker build -t quipu .`). */
  constructor(image = 'quipu:latest') {
    super(image);
    this.withExposedPorts(QUIPU_PORT)
      .withEnvironment({
        DEMO_API_KEY: this.#credentials.apiKey,
        DEMO_SECRET: this.#credentials.secret,
        OPERATOR_TOKEN: this.#credentials.operatorToken,
      })
      .withWaitStrategy(Wait.forHttp('/readyz', QUIPU_PORT).forStatusCode(200))
      .withStartupTimeout(60_000);
  }

  async start() {
    return new StartedQuipuContainer(await super.start(), this.#credentials);
  }
}

export class StartedQuipuContainer extends AbstractStartedContainer {
  #credentials;

  constructor(started, credentials) {
    super(started);
    this.#credentials = credentials;
  }

  /** Where the API, the payer pages and DemoBank answer, e.g. http://localhost:32768. */
  get baseUrl() {
    return `http://${this.getHost()}:${this.getMappedPort(QUIPU_PORT)}`;
  }

  /** The demo account's v3 API key (x-api-key). */
  get apiKey() {
    return this.#credentials.apiKey;
  }

  /** The demo account's receiver secret: v2 signatures, and the signatures of its notifications. */
  get secret() {
    return this.#credentials.secret;
  }

  /** The operator API's and the sandbox's bearer token. */
  get operatorToken() {
    return this.#credentials.operatorToken;
  }

  /**
   * A new developer-mode account for one test: its receiver_id, secret and api_key (and what
   * POST /sandbox/accounts answers for `options`: name, notify_url, refunds, dashboard, fixtures).
   */
  async sandboxAccount(options = {}) {
    const answer = await fetch(`${this.baseUrl}/sandbox/accounts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${this.operatorToken}` },
      body: JSON.stringify(options),
    });
    const body = await answer.json();
    if (answer.status !== 200) throw new Error(`POST /sandbox/accounts answered ${answer.status}: ${JSON.stringify(body)}`);
    return body;
  }

  /** Removes an account made by sandboxAccount(), with everything of it. */
  async removeSandboxAccount(receiverId) {
    const answer = await fetch(`${this.baseUrl}/sandbox/accounts/${receiverId}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${this.operatorToken}` },
    });
    if (answer.status !== 204) throw new Error(`DELETE /sandbox/accounts/${receiverId} answered ${answer.status}: ${await answer.text()}`);
  }
}
