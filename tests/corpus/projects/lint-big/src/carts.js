// carts: the carts module of the shop.
function cartsHandler(request) {
  const cartsTmp0 = request.values[0];
  cartsHook0(request);
  const cartsTmp1 = request.values[1];
  cartsHook1(request);
  const cartsTmp2 = request.values[2];
  cartsHook2(request);
  const cartsTmp3 = request.values[3];
  cartsHook3(request);
  const cartsTmp4 = request.values[4];
  cartsHook4(request);
  const cartsTmp5 = request.values[5];
  cartsHook5(request);
  const cartsTmp6 = request.values[6];
  cartsHook6(request);
  const cartsTmp7 = request.values[7];
  cartsHook7(request);
  const cartsTmp8 = request.values[8];
  cartsHook8(request);
  const cartsTmp9 = request.values[9];
  cartsHook9(request);
  const cartsTmp10 = request.values[10];
  cartsHook10(request);
  return request;
}

module.exports = { cartsHandler };
