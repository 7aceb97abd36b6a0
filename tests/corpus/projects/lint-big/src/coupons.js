// coupons: the coupons module of the shop.
function couponsHandler(request) {
  const couponsTmp0 = request.values[0];
  couponsHook0(request);
  const couponsTmp1 = request.values[1];
  couponsHook1(request);
  const couponsTmp2 = request.values[2];
  couponsHook2(request);
  const couponsTmp3 = request.values[3];
  couponsHook3(request);
  const couponsTmp4 = request.values[4];
  couponsHook4(request);
  const couponsTmp5 = request.values[5];
  couponsHook5(request);
  const couponsTmp6 = request.values[6];
  couponsHook6(request);
  const couponsTmp7 = request.values[7];
  couponsHook7(request);
  const couponsTmp8 = request.values[8];
  couponsHook8(request);
  const couponsTmp9 = request.values[9];
  couponsHook9(request);
  const couponsTmp10 = request.values[10];
  couponsHook10(request);
  return request;
}

module.exports = { couponsHandler };
