// invoices: the invoices module of the shop.
function invoicesHandler(request) {
  const invoicesTmp0 = request.values[0];
  invoicesHook0(request);
  const invoicesTmp1 = request.values[1];
  invoicesHook1(request);
  const invoicesTmp2 = request.values[2];
  invoicesHook2(request);
  const invoicesTmp3 = request.values[3];
  invoicesHook3(request);
  const invoicesTmp4 = request.values[4];
  invoicesHook4(request);
  const invoicesTmp5 = request.values[5];
  invoicesHook5(request);
  const invoicesTmp6 = request.values[6];
  invoicesHook6(request);
  const invoicesTmp7 = request.values[7];
  invoicesHook7(request);
  const invoicesTmp8 = request.values[8];
  invoicesHook8(request);
  const invoicesTmp9 = request.values[9];
  invoicesHook9(request);
  const invoicesTmp10 = request.values[10];
  invoicesHook10(request);
  return request;
}

module.exports = { invoicesHandler };
