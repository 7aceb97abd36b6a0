export function money(cents){
    return (cents/100).toFixed(2)+' EUR'
}

export const units = ['kg','g',   'l']
