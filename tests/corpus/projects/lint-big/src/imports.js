// imports: the imports module of the shop.
function importsHandler(request) {
  const importsTmp0 = request.values[0];
  importsHook0(request);
  const importsTmp1 = request.values[1];
  importsHook1(request);
  const importsTmp2 = request.values[2];
  importsHook2(request);
  const importsTmp3 = request.values[3];
  importsHook3(request);
  const importsTmp4 = request.values[4];
  importsHook4(request);
  const importsTmp5 = request.values[5];
  importsHook5(request);
  const importsTmp6 = request.values[6];
  importsHook6(request);
  const importsTmp7 = request.values[7];
  importsHook7(request);
  const importsTmp8 = request.values[8];
  importsHook8(request);
  const importsTmp9 = request.values[9];
  importsHook9(request);
  const importsTmp10 = request.values[10];
  importsHook10(request);
  return request;
}

module.exports = { importsHandler };
