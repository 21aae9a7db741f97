// A valid POST /v3/receivers body: every required field of the contract, plus a notify_url.
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
