export declare const z: never;
