// payments: the payments module of the shop.
function paymentsHandler(request) {
  const paymentsTmp0 = request.values[0];
  paymentsHook0(request);
  const paymentsTmp1 = request.values[1];
  paymentsHook1(request);
  const paymentsTmp2 = request.values[2];
  paymentsHook2(request);
  const paymentsTmp3 = request.values[3];
  paymentsHook3(request);
  const paymentsTmp4 = request.values[4];
  paymentsHook4(request);
  const paymentsTmp5 = request.values[5];
  paymentsHook5(request);
  const paymentsTmp6 = request.values[6];
  paymentsHook6(request);
  const paymentsTmp7 = request.values[7];
  paymentsHook7(request);
  const paymentsTmp8 = request.values[8];
  paymentsHook8(request);
  const paymentsTmp9 = request.values[9];
  paymentsHook9(request);
  const paymentsTmp10 = request.values[10];
  paymentsHook10(request);
  return request;
}

module.exports = { paymentsHandler };
