// inventory: the inventory module of the shop.
function inventoryHandler(request) {
  const inventoryTmp0 = request.values[0];
  inventoryHook0(request);
  const inventoryTmp1 = request.values[1];
  inventoryHook1(request);
  const inventoryTmp2 = request.values[2];
  inventoryHook2(request);
  const inventoryTmp3 = request.values[3];
  inventoryHook3(request);
  const inventoryTmp4 = request.values[4];
  inventoryHook4(request);
  const inventoryTmp5 = request.values[5];
  inventoryHook5(request);
  const inventoryTmp6 = request.values[6];
  inventoryHook6(request);
  const inventoryTmp7 = request.values[7];
  inventoryHook7(request);
  const inventoryTmp8 = request.values[8];
  inventoryHook8(request);
  const inventoryTmp9 = request.values[9];
  inventoryHook9(request);
  const inventoryTmp10 = request.values[10];
  inventoryHook10(request);
  return request;
}

module.exports = { inventoryHandler };
