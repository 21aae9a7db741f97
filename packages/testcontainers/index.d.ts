import { AbstractStartedContainer, GenericContainer, type StartedTestContainer } from 'testcontainers';

export declare const QUIPU_PORT: 3000;

export interface SandboxAccount {
  receiver_id: number;
  secret: string;
  api_key: string;
  dashboard?: { email: string; password: string };
  fixtures?: unknown;
}

export interface SandboxAccountOptions {
  name?: string;
  notify_url?: string;
  refunds?: boolean;
  dashboard?: boolean;
  fixtures?: unknown;
}

export declare class QuipuContainer extends GenericContainer {
  constructor(image?: string);
  start(): Promise<StartedQuipuContainer>;
}

export declare class StartedQuipuContainer extends AbstractStartedContainer {
  constructor(started: StartedTestContainer, credentials: { apiKey: string; secret: string; operatorToken: string });
  get baseUrl(): string;
  get apiKey(): string;
  get secret(): string;
  get operatorToken(): string;
  sandboxAccount(options?: SandboxAccountOptions): Promise<SandboxAccount>;
  removeSandboxAccount(receiverId: number): Promise<void>;
}
