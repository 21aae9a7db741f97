// Receivers (child collection accounts) opened by an integrator over the API.
import { expect } from 'vitest';
import { call, client, type JsonResponse } from './http.js';
import { basicAuth, formPost } from './oauth.js';
import type { TestAccount, TestServer } from './server.js';

/** A valid POST /v3/receivers body: every required field of the contract, plus a notify_url. */
export const validReceiver = {
  admin_first_name: 'Ana',
  admin_last_name: 'Integrada',
  admin_email: 'ana@shop.example',
  country_code: 'CL',
  business_identifier: '76.086.428-5',
  business_category: 'VENTA AL POR MENOR',
  business_name: 'Tienda de Ana SpA',
  business_phone: '+56911112222',
  business_address_line_1: 'Calle Uno 123',
  business_address_line_2: 'Oficina 4',
  business_address_line_3: 'Santiago',
  contact_full_name: 'Ana Integrada',
  contact_job_title: 'Gerente',
  contact_email: 'contacto@shop.example',
  contact_phone: '+56933334444',
  notify_url: 'https://shop.example/notify',
};

export interface OpenedReceiver {
  receiverId: number;
  secret: string;
  /** A request with the receiver's own credentials (an OAuth token). */
  api(method: string, path: string, body?: unknown): Promise<JsonResponse>;
}

/** A receiver opened by `by` with the POST /v3/receivers body `fields`, acting with its own credentials. */
export async function openReceiver(on: TestServer, by: TestAccount, fields: Record<string, string>): Promise<OpenedReceiver> {
  const created = await client(on.baseUrl, by.api_key).post('/v3/receivers', fields);
  expect(created.status).toBe(200);
  const receiverId = Number(created.body.receiver_id);
  const token = await formPost(
    on.baseUrl,
    '/oauth2/token',
    { grant_type: 'client_credentials' },
    basicAuth({ receiver_id: receiverId, secret: created.body.secret }),
  );
  const headers = { authorization: `Bearer ${token.body.access_token}` };
  return { receiverId, secret: created.body.secret, api: (method, path, body) => call(on.baseUrl, method, path, { headers, body }) };
}
