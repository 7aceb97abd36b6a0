// customers: the customers module of the shop.
function customersHandler(request) {
  const customersTmp0 = request.values[0];
  customersHook0(request);
  const customersTmp1 = request.values[1];
  customersHook1(request);
  const customersTmp2 = request.values[2];
  customersHook2(request);
  const customersTmp3 = request.values[3];
  customersHook3(request);
  const customersTmp4 = request.values[4];
  customersHook4(request);
  const customersTmp5 = request.values[5];
  customersHook5(request);
  const customersTmp6 = request.values[6];
  customersHook6(request);
  const customersTmp7 = request.values[7];
  customersHook7(request);
  const customersTmp8 = request.values[8];
  customersHook8(request);
  const customersTmp9 = request.values[9];
  customersHook9(request);
  const customersTmp10 = request.values[10];
  customersHook10(request);
  return request;
}

module.exports = { customersHandler };
