// orders: the orders module of the shop.
function ordersHandler(request) {
  const ordersTmp0 = request.values[0];
  ordersHook0(request);
  const ordersTmp1 = request.values[1];
  ordersHook1(request);
  const ordersTmp2 = request.values[2];
  ordersHook2(request);
  const ordersTmp3 = request.values[3];
  ordersHook3(request);
  const ordersTmp4 = request.values[4];
  ordersHook4(request);
  const ordersTmp5 = request.values[5];
  ordersHook5(request);
  const ordersTmp6 = request.values[6];
  ordersHook6(request);
  const ordersTmp7 = request.values[7];
  ordersHook7(request);
  const ordersTmp8 = request.values[8];
  ordersHook8(request);
  const ordersTmp9 = request.values[9];
  ordersHook9(request);
  const ordersTmp10 = request.values[10];
  ordersHook10(request);
  return request;
}

module.exports = { ordersHandler };
