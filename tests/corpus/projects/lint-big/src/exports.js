// exports: the exports module of the shop.
function exportsHandler(request) {
  const exportsTmp0 = request.values[0];
  exportsHook0(request);
  const exportsTmp1 = request.values[1];
  exportsHook1(request);
  const exportsTmp2 = request.values[2];
  exportsHook2(request);
  const exportsTmp3 = request.values[3];
  exportsHook3(request);
  const exportsTmp4 = request.values[4];
  exportsHook4(request);
  const exportsTmp5 = request.values[5];
  exportsHook5(request);
  const exportsTmp6 = request.values[6];
  exportsHook6(request);
  const exportsTmp7 = request.values[7];
  exportsHook7(request);
  const exportsTmp8 = request.values[8];
  exportsHook8(request);
  const exportsTmp9 = request.values[9];
  exportsHook9(request);
  const exportsTmp10 = request.values[10];
  exportsHook10(request);
  return request;
}

module.exports = { exportsHandler };
