// catalog: the catalog module of the shop.
function catalogHandler(request) {
  const catalogTmp0 = request.values[0];
  catalogHook0(request);
  const catalogTmp1 = request.values[1];
  catalogHook1(request);
  const catalogTmp2 = request.values[2];
  catalogHook2(request);
  const catalogTmp3 = request.values[3];
  catalogHook3(request);
  const catalogTmp4 = request.values[4];
  catalogHook4(request);
  const catalogTmp5 = request.values[5];
  catalogHook5(request);
  const catalogTmp6 = request.values[6];
  catalogHook6(request);
  const catalogTmp7 = request.values[7];
  catalogHook7(request);
  const catalogTmp8 = request.values[8];
  catalogHook8(request);
  const catalogTmp9 = request.values[9];
  catalogHook9(request);
  const catalogTmp10 = request.values[10];
  catalogHook10(request);
  return request;
}

module.exports = { catalogHandler };
